import { EVENT_TYPES } from "@platform/sdk"
import { Argument } from "commander"
import { CliError } from "../../context.js"
import { isSandbox } from "../../dashboard/session.js"
import { command, int, type CommandFactory } from "../util.js"
import { HAPPENINGS } from "./happenings.js"

export const trigger: CommandFactory = (ctx) =>
  command("trigger", "Sandbox only: make an event happen through the real pipeline, to test a receiver without writing payloads")
    .addArgument(new Argument("<event-type>", "the event to make happen").choices(EVENT_TYPES))
    .option("--channel <id>", "the chat channel to use (default: the account's first connected chat channel)", int)
    .addHelpText(
      "after",
      "\nNeeds the API key and a dashboard session (`platform login --email`). Refused against the real upstream (UPSTREAM=meta).\n" +
        "With `platform listen --forward-to <url>` (or a subscription) running, the event reaches your receiver.\n"
    )
    .action(async (eventType: string, o: { channel?: number }) => {
      if (!(await isSandbox(ctx))) {
        throw new CliError("`platform trigger` works only against the sandbox upstream: this server talks to the real upstream (UPSTREAM=meta), where it would send real messages.")
      }
      const client = await ctx.client()
      const channelId = o.channel ?? (await client.channels.list({ type: "chat" })).find((c) => c.status === "active")?.channel_id
      if (channelId === undefined) throw new CliError("No connected chat channel: connect one with `platform channels connect`, or pass --channel.")
      const happened = await ctx.out.spin(`Triggering ${eventType}`, HAPPENINGS[eventType]!({ ctx, client, channelId }))
      ctx.out.result({ event_type: eventType, channel_id: channelId, events: happened.events, ...happened.detail, ...(happened.note ? { note: happened.note } : {}) }, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} ${eventType}: ${happened.did} on channel ${channelId}`)
        ctx.out.info(ctx.out.ce.dim(`Events: ${happened.events.join(", ")}`))
        if (happened.note) ctx.out.info(ctx.out.ce.yellow(happened.note))
      })
    })
