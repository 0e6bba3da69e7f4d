import { command, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendReaction: CommandFactory = (ctx) =>
  sendOptions(command("reaction", "React to a message with an emoji"))
    .requiredOption("--message-id <id>", "the message to react to")
    .requiredOption("--emoji <emoji>", "the emoji (empty string removes the reaction)")
    .action(async (o) => {
      const client = await ctx.client()
      const body = { channel_id: o.channel as number, to: o.to as string, reaction: { message_id: o.messageId as string, emoji: o.emoji as string } }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendReaction(body, keyOption(o))))
    })
