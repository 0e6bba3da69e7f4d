import { command, int, type CommandFactory } from "../util.js"
import { printSubscription } from "./common.js"

export const subscriptionsRotateSecret: CommandFactory = (ctx) =>
  command("rotate-secret", "Issue a new signing secret (printed once)")
    .argument("<id>", "subscription id", int)
    .action(async (id: number) => printSubscription(ctx, await (await ctx.client()).webhooks.subscriptions.rotateSecret(id), "Rotated the secret of"))
