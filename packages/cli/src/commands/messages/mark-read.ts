import { command, int, type CommandFactory } from "../util.js"

export const markRead: CommandFactory = (ctx) =>
  command("mark-read", "Mark an inbound message (chat) or a sender's conversation (social) as read")
    .requiredOption("--channel <id>", "channel id", int)
    .requiredOption("--message-id <id>", "inbound message id (chat) or sender id (social)")
    .action(async (o) => {
      const client = await ctx.client()
      const result = await client.messages.markRead({ channel_id: o.channel as number, message_id: o.messageId as string })
      ctx.out.result(result, () => ctx.out.line(`${ctx.out.c.green("✓")} ${result.message_id} marked ${result.status}`))
    })
