import { command, int, type CommandFactory } from "../util.js"
import { printSubscription } from "./common.js"

export const subscriptionsGet: CommandFactory = (ctx) =>
  command("get", "Show a subscription")
    .argument("<id>", "subscription id", int)
    .action(async (id: number) => printSubscription(ctx, await (await ctx.client()).webhooks.subscriptions.retrieve(id)))
