import { command, int, type CommandFactory } from "../util.js"

export const channelsDisplayName: CommandFactory = (ctx) =>
  command("display-name", "Show a chat channel's display name and its review state")
    .argument("<channel_id>", "channel id", int)
    .addHelpText("after", "\nA new display name is submitted and reviewed in the upstream's business manager, not through the API.\n")
    .action(async (channelId: number) => {
      const name = await ctx.out.spin("Loading the display name", (await ctx.client()).channels.getDisplayName(channelId))
      ctx.out.result(name, () =>
        ctx.out.fields([
          ["channel", name.channel_id],
          ["name", name.verified_name],
          ["number", name.display_phone_number],
          ["status", name.name_status],
          ["new name status", name.new_name_status]
        ])
      )
    })
