import { command, int, type CommandFactory } from "../util.js"

export const mediaDelete: CommandFactory = (ctx) =>
  command("delete", "Delete uploaded media")
    .argument("<media_id>", "media id")
    .requiredOption("--channel <id>", "channel id", int)
    .action(async (mediaId: string, o) => {
      const result = await (await ctx.client()).media.delete(mediaId, { channel_id: o.channel as number })
      ctx.out.result(result, () => ctx.out.line(`${ctx.out.c.green("✓")} Deleted media ${mediaId}`))
    })
