import { clock } from "../../output.js"
import { command, int, list, type CommandFactory } from "../util.js"
import { summary } from "./summary.js"

export const eventsTail: CommandFactory = (ctx) =>
  command("tail", "Stream the account's events live (Server-Sent Events; reconnects on its own)")
    .option("--events <types>", "only these event types, comma-separated", list)
    .option("--channel <id>", "only this channel", int)
    .option("--since <event_id>", "replay events after this id (last 24 h), then follow")
    .action(async (o) => {
      const client = await ctx.client()
      const stream = client.events.stream({
        ...(o.events ? { event_types: o.events as string[] } : {}),
        ...(o.channel !== undefined ? { channel_id: o.channel as number } : {}),
        ...(o.since ? { lastEventId: o.since as string } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        onReconnect: ({ delayMs }) => ctx.out.info(ctx.out.ce.yellow(`Connection lost; reconnecting in ${(delayMs / 1000).toFixed(1)} s`))
      })
      if (!ctx.flags.json) ctx.out.info(`${ctx.out.ce.bold("Streaming events")} ${ctx.out.ce.dim("(^C to quit)")}`)
      for await (const e of stream) {
        if (ctx.flags.json) ctx.out.jsonLine(e)
        else
          ctx.out.line(
            [ctx.out.c.dim(clock(new Date(e.occurred_at))), ctx.out.c.cyan(e.event.padEnd(24)), `ch ${e.platform_channel_id ?? "-"}`.padEnd(7), summary(e), ctx.out.c.dim(e.id)].join("  ")
          )
      }
    })
