import { command, int, type CommandFactory } from "../util.js"
import { printSubscription } from "./common.js"

export const subscriptionsResume: CommandFactory = (ctx) =>
  command("resume", "Resume a paused subscription and reset its failure count")
    .argument("<id>", "subscription id", int)
    .action(async (id: number) => printSubscription(ctx, await (await ctx.client()).webhooks.subscriptions.resume(id), "Resumed"))
