import { command, int, type CommandFactory } from "../util.js"
import { printDelivery } from "./common.js"

export const deliveriesGet: CommandFactory = (ctx) =>
  command("get", "Show a delivery")
    .argument("<id>", "delivery id", int)
    .option("--full-envelope", "include the payload exactly as delivered")
    .action(async (id: number, o) => {
      const d = await (await ctx.client()).webhooks.deliveries.retrieve(id, o.fullEnvelope ? { include: "full_envelope" } : {})
      printDelivery(ctx, d)
    })
