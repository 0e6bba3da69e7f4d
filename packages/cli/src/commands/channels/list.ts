import { Option } from "commander"
import { command, type CommandFactory } from "../util.js"

export const channelsList: CommandFactory = (ctx) =>
  command("list", "List the account's channels")
    .addOption(new Option("--type <type>", "only channels of this kind").choices(["chat", "social"]))
    .action(async (o) => {
      const params = o.type !== undefined ? { type: o.type as "chat" | "social" } : {}
      const channels = await ctx.out.spin("Loading channels", (await ctx.client()).channels.list(params))
      ctx.out.result(channels, () =>
        ctx.out.table(
          channels,
          [
            { header: "id", value: (c) => String(c.channel_id) },
            { header: "type", value: (c) => c.type },
            { header: "name", value: (c) => c.name ?? c.display_phone_number ?? c.username ?? "-" },
            { header: "status", value: (c) => (c.status === "active" ? ctx.out.c.green(c.status) : ctx.out.c.yellow(c.status)) },
            { header: "inbound", value: (c) => (c.inbound_enabled === false ? ctx.out.c.yellow("off") : "on") },
            { header: "quality", value: (c) => c.quality_rating ?? "-" },
            { header: "created", value: (c) => c.created_at }
          ],
          "No channels yet: connect one in the dashboard."
        )
      )
    })
