import type { Conversation } from "@platform/sdk"
import type { Context } from "../../context.js"
import { type Column, truncate } from "../../output.js"

export const conversationColumns = (ctx: Context): ReadonlyArray<Column<Conversation>> => [
  { header: "id", value: (c) => String(c.id) },
  { header: "status", value: (c) => (c.status === "active" ? ctx.out.c.green(c.status) : ctx.out.c.dim(c.status)) },
  { header: "channel", value: (c) => String(c.platform_channel_id) },
  { header: "peer", value: (c) => c.peer_id },
  { header: "msgs", value: (c) => `${c.message_count} (${c.inbound_count} in, ${c.outbound_count} out)` },
  { header: "last", value: (c) => truncate((c.last_message_preview ?? "").replace(/\s+/g, " "), 30) || "-" },
  { header: "last active", value: (c) => c.last_active_at }
]
