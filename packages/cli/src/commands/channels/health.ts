import type { Paint } from "../../output.js"
import { command, int, type CommandFactory } from "../util.js"

/** AVAILABLE green, LIMITED yellow, BLOCKED (or anything else) red. */
export const sendState = (c: Paint, state: string): string =>
  state === "AVAILABLE" ? c.green(state) : state === "LIMITED" ? c.yellow(state) : c.red(state)

export const channelsHealth: CommandFactory = (ctx) =>
  command("health", "Probe whether a chat channel can send, overall and per entity (number, business account, business, app)")
    .argument("<channel_id>", "channel id", int)
    .action(async (channelId: number) => {
      const health = await ctx.out.spin("Probing the channel", (await ctx.client()).channels.health(channelId))
      ctx.out.result(health, () => {
        const c = ctx.out.c
        ctx.out.line(`Channel ${c.bold(String(health.channel_id))} can send messages: ${sendState(c, health.can_send_message)}`)
        ctx.out.table(health.entities, [
          { header: "entity", value: (e) => e.entity_type },
          { header: "can send", value: (e) => sendState(c, e.can_send_message) },
          {
            header: "details",
            value: (e) =>
              [
                ...e.errors.map((x) => [x.error_code, x.error_description, x.possible_solution].filter((v) => v !== null).join(": ")),
                ...e.additional_info
              ].join("; ") || "-"
          }
        ])
      })
    })
