import { command, int, type CommandFactory } from "../util.js"

export const mediaUrl: CommandFactory = (ctx) =>
  command("url", "Print a short-lived URL of uploaded media")
    .argument("<media_id>", "media id")
    .requiredOption("--channel <id>", "channel id", int)
    .action(async (mediaId: string, o) => {
      const result = await (await ctx.client()).media.getUrl(mediaId, { channel_id: o.channel as number })
      ctx.out.result(result, () => {
        ctx.out.line(result.url)
        ctx.out.info(ctx.out.ce.dim(`${result.mime_type}, ${result.file_size} bytes; the URL expires shortly`))
      })
    })
