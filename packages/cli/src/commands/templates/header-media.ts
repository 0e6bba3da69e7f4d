import { command, int, type CommandFactory } from "../util.js"

export const templatesHeaderMedia: CommandFactory = (ctx) =>
  command("header-media", "Upload a header sample (JPEG, PNG, MP4, PDF) and print the handle for example.header_handle")
    .argument("<path>", "file to upload")
    .requiredOption("--channel <id>", "the chat channel", int)
    .option("--mime-type <type>", "MIME type (guessed from the extension)")
    .action(async (path: string, o) => {
      const client = await ctx.client()
      const upload = client.templates.uploadHeaderMedia({ channel_id: o.channel as number, file: path, ...(o.mimeType ? { mime_type: o.mimeType as string } : {}) })
      const result = await ctx.out.spin("Uploading", upload)
      ctx.out.result(result, () => {
        ctx.out.line(result.handle)
        ctx.out.info(ctx.out.ce.dim(`Use it in a HEADER component: {"type":"HEADER","format":"IMAGE","example":{"header_handle":["${result.handle}"]}}`))
      })
    })
