import { Option } from "commander"
import { usage } from "../../context.js"
import { command, defined, type CommandFactory } from "../util.js"
import { keyOption, printSent, replyTo, sendOptions } from "./common.js"

const TYPES = ["image", "video", "audio", "document", "sticker"] as const

export const sendMedia: CommandFactory = (ctx) =>
  sendOptions(command("media", "Send an image, video, audio, document or sticker"))
    .addOption(new Option("--type <type>", "media type").choices(TYPES).makeOptionMandatory())
    .option("--link <url>", "public URL of the media")
    .option("--id <media_id>", "media id from `platform media upload`")
    .option("--file <path>", "upload this file first, then send it")
    .option("--caption <text>", "caption (image, video, document)")
    .option("--filename <name>", "file name (document)")
    .option("--voice", "send audio as a voice note (chat)")
    .option("--reply-to <message_id>", "reply to this message")
    .action(async (o) => {
      const sources = [o.link, o.id, o.file].filter((v) => v !== undefined)
      if (sources.length !== 1) throw usage("give exactly one of --link, --id or --file")
      const client = await ctx.client()
      let id = o.id as string | undefined
      if (o.file !== undefined) {
        const uploaded = await ctx.out.spin("Uploading", client.media.upload({ channel_id: o.channel as number, file: o.file as string }))
        if (!ctx.flags.json) ctx.out.info(ctx.out.ce.dim(`Uploaded ${o.file as string} as media ${uploaded.media_id}`))
        id = uploaded.media_id
      }
      const media = defined({
        link: o.link as string | undefined,
        id,
        caption: o.caption as string | undefined,
        filename: o.filename as string | undefined,
        voice: o.voice as boolean | undefined
      })
      const body = { channel_id: o.channel as number, to: o.to as string, type: o.type as (typeof TYPES)[number], media, ...replyTo(o) }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.send(body, keyOption(o))))
    })
