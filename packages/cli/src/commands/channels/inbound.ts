import { usage } from "../../context.js"
import { command, int, type CommandFactory } from "../util.js"

export const channelsInbound: CommandFactory = (ctx) =>
  command("inbound", "Switch inbound processing of a channel on or off (the kill-switch)")
    .argument("<channel_id>", "channel id", int)
    .option("--on", "process inbound messages again")
    .option("--off", "stop processing inbound messages")
    .action(async (channelId: number, o) => {
      if (o.on === o.off) throw usage("give exactly one of --on or --off")
      const channel = await (await ctx.client()).channels.setInbound(channelId, { enabled: o.on === true })
      ctx.out.result(channel, () =>
        ctx.out.line(`${ctx.out.c.green("✓")} Inbound ${channel.inbound_enabled === false ? "off" : "on"} for channel ${ctx.out.c.bold(String(channel.channel_id))}`)
      )
    })
