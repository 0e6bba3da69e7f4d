import { APIError } from "@platform/sdk"
import { CliError } from "../../context.js"
import { command, int, type CommandFactory } from "../util.js"

/** The event types a 422 event_not_configured lists (SPEC §4.5: "the response lists the configured types"). */
const configuredTypes = (error: unknown): ReadonlyArray<string> | undefined => {
  if (!(error instanceof APIError) || error.code !== "event_not_configured") return undefined
  const types = (error.body as { detail?: { configured_event_types?: unknown } } | null)?.detail?.configured_event_types
  return Array.isArray(types) ? types.filter((t): t is string => typeof t === "string") : undefined
}

export const subscriptionsTest: CommandFactory = (ctx) =>
  command("test", "Send a signed sample event (data._test: true) to the subscription")
    .argument("<id>", "subscription id", int)
    .option("--event-type <type>", "sample event type (default: the first configured, or message.sent)")
    .action(async (id: number, o) => {
      const client = await ctx.client()
      const d = await client.webhooks.subscriptions.test(id, o.eventType ? { event_type: o.eventType as never } : {}).catch((error: unknown) => {
        const configured = configuredTypes(error)
        if (configured === undefined || ctx.flags.json) throw error
        throw new CliError(
          `subscription ${id} does not receive ${o.eventType as string}; it is subscribed to ${configured.join(", ")}. ` +
            `Test one of those with --event-type, or add the type with \`platform subscriptions update ${id} --events ...\`.`
        )
      })
      ctx.out.result(d, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Queued ${d.event_type} test event ${d.event_id} as delivery ${ctx.out.c.bold(String(d.id))}`)
        ctx.out.info(ctx.out.ce.dim(`Follow it with: platform deliveries get ${d.id}`))
      })
    })
