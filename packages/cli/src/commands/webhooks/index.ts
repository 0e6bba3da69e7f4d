import { command, type CommandFactory } from "../util.js"
import { webhooksRawForward } from "./raw-forward.js"

export const webhooks: CommandFactory = (ctx) =>
  command("webhooks", "Channel-level webhook settings (subscriptions are `platform subscriptions`)").addCommand(webhooksRawForward(ctx))
