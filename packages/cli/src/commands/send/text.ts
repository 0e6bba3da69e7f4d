import { command, defined, type CommandFactory } from "../util.js"
import { keyOption, printSent, replyTo, sendOptions } from "./common.js"

export const sendText: CommandFactory = (ctx) =>
  sendOptions(command("text", "Send a text message"))
    .requiredOption("--text <text>", "message text")
    .option("--preview-url", "show a link preview (chat channels)")
    .option("--reply-to <message_id>", "reply to this message")
    .action(async (o) => {
      const client = await ctx.client()
      const body = {
        ...defined({ channel_id: o.channel as number, to: o.to as string, text: o.text as string, preview_url: o.previewUrl as boolean | undefined }),
        ...replyTo(o)
      }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendText(body, keyOption(o))))
    })
