import type { BlockUsersResult } from "@platform/sdk"
import { CliError } from "../../context.js"
import { command, int, type CommandFactory } from "../util.js"

/** `block` and `unblock`: the same body, table and exit status (1 when the upstream refused any user). */
const blocking = (verb: "block" | "unblock"): CommandFactory => (ctx) =>
  command(verb, verb === "block" ? "Block users from messaging a chat channel" : "Unblock users of a chat channel")
    .argument("<channel_id>", "channel id", int)
    .argument("<users...>", "phone numbers or WhatsApp ids, 1 to 1000")
    .addHelpText(
      "after",
      `\nPrints one row per user; exits 1 when the upstream refused any of them${verb === "block" ? " (only users who wrote in the last 24 hours can be blocked)" : ""}.\n`
    )
    .action(async (channelId: number, users: string[]) => {
      const client = await ctx.client()
      const call = verb === "block" ? client.channels.blockUsers(channelId, { users }) : client.channels.unblockUsers(channelId, { users })
      const result: BlockUsersResult = await ctx.out.spin(`${verb === "block" ? "Blocking" : "Unblocking"} ${users.length} user(s)`, call)
      const c = ctx.out.c
      ctx.out.result(result, () =>
        ctx.out.table(
          [
            ...result.succeeded.map((u) => ({ user: u.user, result: c.green(`${verb}ed`), detail: u.wa_id ?? "-" })),
            ...result.failed.map((u) => ({
              user: u.user,
              result: c.red("failed"),
              detail: u.errors.map((e) => (e.code !== null ? `${e.code} ${e.message}` : e.message)).join("; ") || "-"
            }))
          ],
          [
            { header: "user", value: (r) => r.user },
            { header: "result", value: (r) => r.result },
            { header: "wa_id / reason", value: (r) => r.detail }
          ]
        )
      )
      if (result.failed.length > 0) {
        throw new CliError(`the upstream refused to ${verb} ${result.failed.length} of ${result.succeeded.length + result.failed.length} user(s)`)
      }
    })

export const channelsBlock = blocking("block")
export const channelsUnblock = blocking("unblock")
