import type { WebhookSubscription, WebhookSubscriptionWithSecret } from "@platform/sdk"
import type { Command } from "commander"
import type { Context } from "../../context.js"
import type { Column } from "../../output.js"
import { truncate } from "../../output.js"
import { defined, header, int, list } from "../util.js"

/** The body options shared by create and update (whose lists replace the stored ones, as its help says). */
export const bodyOptions = (cmd: Command, verb: "create" | "update" = "create"): Command =>
  cmd
    .option(
      "--events <types>",
      verb === "create"
        ? "event types, comma-separated (none: every event but message.received)"
        : "the event types it receives from now on, comma-separated (replaces the list)",
      list
    )
    .option("--channel <id>", "only events of this channel (default: every channel)", int)
    .option("--description <text>", "description (up to 200 characters)")
    .option(
      "--header <name:value>",
      verb === "create"
        ? "custom header sent with each delivery (repeatable)"
        : "custom header sent with each delivery (repeatable); the headers given replace every stored one",
      header
    )
    .option("--buffer-window <seconds>", "batch events for up to this many seconds (1..60)", int)
    .option("--buffer-max-batch <n>", "send a batch once it holds this many events (1..100)", int)
    .option("--inactivity-minutes <n>", "emit conversation.inactive after this many idle minutes (1..1440)", int)

/** The `--no-<option>` forms of update, which clear a field (`false` from commander becomes null, or [] for --no-events). */
export const clearOptions = (cmd: Command): Command =>
  cmd
    .option("--no-events", "every event type but message.received (catch-all)")
    .option("--no-channel", "events of every channel")
    .option("--no-description", "remove the description")
    .option("--no-header", "remove every custom header")
    .option("--no-buffer-window", "deliver each event at once (no batching; clears the batch size too)")
    .option("--no-buffer-max-batch", "no batch size limit")
    .option("--no-inactivity-minutes", "no conversation.inactive events")

/** A field's value: undefined when the option is absent, null when it was cleared with its `--no-` form. */
const value = <T>(v: unknown): T | null | undefined => (v === false ? null : (v as T | undefined))

/** Maps the shared options (and update's `--no-` forms) to body fields. */
export const bodyFrom = (o: Record<string, unknown>) => {
  const fields = {
    event_types: o.events === false ? [] : (o.events as never),
    platform_channel_id: value<number>(o.channel),
    description: value<string>(o.description),
    custom_headers: value<Record<string, string>>(o.header),
    buffer_window_seconds: value<number>(o.bufferWindow),
    // A batch size means nothing without a window (the API refuses one left behind), so no window clears it too.
    buffer_max_batch: o.bufferWindow === false && o.bufferMaxBatch === undefined ? null : value<number>(o.bufferMaxBatch),
    inactivity_minutes: value<number>(o.inactivityMinutes)
  }
  return defined(fields) as Partial<ReturnType<typeof defined<typeof fields>>>
}

/** A subscription's state in one word, with the reason the service gave for switching it off or pausing it. */
export const state = (ctx: Context, s: WebhookSubscription): string => {
  const reason = s.paused_reason ? ` (${s.paused_reason})` : ""
  // A receiver answering 410 Gone switches the subscription off with receiver_gone_410: say so, or "inactive" reads as the developer's doing.
  return !s.is_active ? ctx.out.c.gray(`inactive${reason}`) : s.is_paused ? ctx.out.c.yellow(`paused${reason}`) : ctx.out.c.green("active")
}

/** Table columns of the subscription list. */
export const columns = (ctx: Context): ReadonlyArray<Column<WebhookSubscription>> => [
  { header: "id", value: (s) => String(s.id) },
  { header: "target", value: (s) => truncate(s.target_url, 48) },
  { header: "events", value: (s) => (s.event_types.length === 0 ? ctx.out.c.dim("all (except message.received)") : truncate(s.event_types.join(","), 40)) },
  { header: "channel", value: (s) => (s.platform_channel_id === null ? "all" : String(s.platform_channel_id)) },
  { header: "state", value: (s) => state(ctx, s) },
  { header: "failures", value: (s) => String(s.failure_count) }
]

/** Prints one subscription; its secret, when present, with a warning that it is shown once. */
export const printSubscription = (ctx: Context, s: WebhookSubscription | WebhookSubscriptionWithSecret, verb?: string): void =>
  ctx.out.result(s, () => {
    if (verb) ctx.out.line(`${ctx.out.c.green("✓")} ${verb} subscription ${ctx.out.c.bold(String(s.id))}`)
    ctx.out.fields([
      ["id", s.id],
      ["target_url", s.target_url],
      ["event_types", s.event_types.length === 0 ? "all (except message.received)" : s.event_types.join(", ")],
      ["channel", s.platform_channel_id ?? "all"],
      ["description", s.description],
      ["state", state(ctx, s)],
      ["failure_count", s.failure_count],
      ["buffer", s.buffer_window_seconds === null ? null : `${s.buffer_window_seconds}s / ${s.buffer_max_batch ?? "-"} events`],
      ["inactivity_minutes", s.inactivity_minutes],
      ["custom_headers", s.custom_headers],
      ["last_delivery_at", s.last_delivery_at],
      ["created_at", s.created_at]
    ])
    if ("secret" in s) {
      ctx.out.line()
      ctx.out.line(`${ctx.out.c.bold("Signing secret:")} ${s.secret}`)
      ctx.out.info(ctx.out.ce.yellow("This secret is shown only once. Store it now; verify deliveries with @platform/webhook-verify."))
    }
  })

/**
 * After a create or update: names of --header the API did not store. SPEC §4.5 strips reserved names (the signature,
 * event and delivery headers, Content-Type, Authorization, and the ones HTTP itself sets) without an error, so a
 * developer counting on `Authorization` at the receiver would otherwise only notice it missing there.
 */
export const warnDroppedHeaders = (ctx: Context, sent: unknown, s: WebhookSubscription): void => {
  if (ctx.flags.json || sent === null || typeof sent !== "object") return
  const stored = new Set(Object.keys(s.custom_headers ?? {}).map((n) => n.toLowerCase()))
  const dropped = Object.keys(sent).filter((n) => !stored.has(n.toLowerCase()))
  if (dropped.length === 0) return
  ctx.out.info(ctx.out.ce.yellow(
    `Not stored: ${dropped.join(", ")} (reserved header names: the platform sets these on each delivery itself, ` +
      "so a subscription cannot; to authenticate deliveries, verify their signature)."
  ))
}
