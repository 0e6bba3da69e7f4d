import type { Broadcast, BroadcastRecipient } from "@platform/sdk"
import type { Context } from "../../context.js"
import type { Column } from "../../output.js"
import { truncate } from "../../output.js"

/** A broadcast's status, coloured by how it stands. */
export const status = (ctx: Context, s: Broadcast["status"] | BroadcastRecipient["status"]): string => {
  const c = ctx.out.c
  switch (s) {
    case "completed":
    case "delivered":
    case "read":
    case "responded":
      return c.green(s)
    case "sending":
    case "scheduled":
    case "sent":
      return c.yellow(s)
    case "failed":
      return c.red(s)
    default:
      return c.gray(s)
  }
}

/** Table columns of the broadcast list. */
export const columns = (ctx: Context): ReadonlyArray<Column<Broadcast>> => [
  { header: "id", value: (b) => String(b.id) },
  { header: "name", value: (b) => truncate(b.name, 32) },
  { header: "channel", value: (b) => String(b.platform_channel_id) },
  { header: "template", value: (b) => truncate(`${b.template_name} (${b.language_code})`, 32) },
  { header: "status", value: (b) => status(ctx, b.status) },
  { header: "recipients", value: (b) => String(b.recipient_count) },
  { header: "scheduled", value: (b) => b.scheduled_at ?? "" },
  { header: "created", value: (b) => b.created_at }
]

/** Table columns of a broadcast's recipients. */
export const recipientColumns = (ctx: Context): ReadonlyArray<Column<BroadcastRecipient>> => [
  { header: "id", value: (r) => String(r.id) },
  { header: "to", value: (r) => r.to },
  { header: "status", value: (r) => status(ctx, r.status) },
  { header: "message", value: (r) => r.message_id ?? "" },
  { header: "error", value: (r) => truncate(r.error ?? "", 48) },
  { header: "updated", value: (r) => r.updated_at }
]

/** Prints one broadcast, with a line saying what was done to it. */
export const printBroadcast = (ctx: Context, b: Broadcast, verb?: string): void =>
  ctx.out.result(b, () => {
    if (verb) ctx.out.line(`${ctx.out.c.green("✓")} ${verb} broadcast ${ctx.out.c.bold(String(b.id))}`)
    ctx.out.fields([
      ["id", b.id],
      ["name", b.name],
      ["channel", b.platform_channel_id],
      ["template", `${b.template_name} (${b.language_code})`],
      ["status", status(ctx, b.status)],
      ["recipients", b.recipient_count],
      ["scheduled_at", b.scheduled_at],
      ["started_at", b.started_at],
      ["completed_at", b.completed_at],
      ["created_at", b.created_at]
    ])
  })

/** The RequestOptions for an optional --idempotency-key. */
export const keyOption = (o: { idempotencyKey?: string }) => (o.idempotencyKey ? { idempotencyKey: o.idempotencyKey } : {})
