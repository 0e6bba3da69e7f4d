import type { Message } from "@platform/sdk"
import type { Context } from "../../context.js"
import { type Column, truncate } from "../../output.js"

/** A message's status, coloured; "-" for inbound messages, which have none. */
const status = (ctx: Context, s: string | null): string =>
  s === null ? "-" : s === "failed" ? ctx.out.c.red(s) : s === "read" || s === "delivered" ? ctx.out.c.green(s) : s

export const messageColumns = (ctx: Context): ReadonlyArray<Column<Message>> => [
  { header: "id", value: (m) => String(m.id) },
  { header: "dir", value: (m) => (m.direction === "inbound" ? "in" : "out") },
  { header: "type", value: (m) => m.type },
  { header: "status", value: (m) => status(ctx, m.status) },
  { header: "channel", value: (m) => String(m.platform_channel_id) },
  { header: "conv", value: (m) => (m.conversation_id === null ? "-" : String(m.conversation_id)) },
  { header: "text", value: (m) => truncate((m.text ?? "").replace(/\s+/g, " "), 40) || "-" },
  { header: "created", value: (m) => m.created_at }
]
