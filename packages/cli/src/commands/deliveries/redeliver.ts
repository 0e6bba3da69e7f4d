import { command, int, type CommandFactory } from "../util.js"
import { printDelivery } from "./common.js"

export const deliveriesRedeliver: CommandFactory = (ctx) =>
  command("redeliver", "Deliver an event again (same event id, new delivery)")
    .argument("<id>", "delivery id", int)
    .action(async (id: number) => printDelivery(ctx, await (await ctx.client()).webhooks.deliveries.redeliver(id), "Queued as"))
