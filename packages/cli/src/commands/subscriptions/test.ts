import { command, int, type CommandFactory } from "../util.js"

export const subscriptionsTest: CommandFactory = (ctx) =>
  command("test", "Send a signed sample event (data._test: true) to the subscription")
    .argument("<id>", "subscription id", int)
    .option("--event-type <type>", "sample event type (default: the first configured, or message.sent)")
    .action(async (id: number, o) => {
      const d = await (await ctx.client()).webhooks.subscriptions.test(id, o.eventType ? { event_type: o.eventType as never } : {})
      ctx.out.result(d, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Queued ${d.event_type} test event ${d.event_id} as delivery ${ctx.out.c.bold(String(d.id))}`)
        ctx.out.info(ctx.out.ce.dim(`Follow it with: platform deliveries get ${d.id}`))
      })
    })
