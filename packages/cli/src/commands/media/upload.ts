import { usage } from "../../context.js"
import { command, int, type CommandFactory } from "../util.js"

export const mediaUpload: CommandFactory = (ctx) =>
  command("upload", "Upload a file, or have the platform fetch a public URL")
    .argument("[path]", "file to upload")
    .requiredOption("--channel <id>", "channel id", int)
    .option("--url <url>", "fetch the media from this public URL instead of uploading a file")
    .option("--mime-type <type>", "MIME type (required with --url; guessed from the extension for files)")
    .action(async (path: string | undefined, o) => {
      if (path === undefined && o.url === undefined) throw usage("give the file to upload (a path) or --url <url>")
      if (path !== undefined && o.url !== undefined) throw usage("give a file path or --url, not both")
      if (o.url !== undefined && o.mimeType === undefined) throw usage("--mime-type is required with --url")
      const client = await ctx.client()
      const upload =
        o.url !== undefined
          ? client.media.upload({ channel_id: o.channel as number, url: o.url as string, mime_type: o.mimeType as string })
          : client.media.upload({ channel_id: o.channel as number, file: path!, ...(o.mimeType ? { mime_type: o.mimeType as string } : {}) })
      const result = await ctx.out.spin("Uploading", upload)
      ctx.out.result(result, () => ctx.out.line(`${ctx.out.c.green("✓")} Uploaded media ${ctx.out.c.bold(result.media_id)} (channel ${result.channel_id})`))
    })
