import type { AnyEnvelope } from "@platform/sdk"

/** A short human summary of an envelope's data (peer and text, status, template name...). */
export const summary = (e: AnyEnvelope): string => {
  const d = e.data as Record<string, unknown>
  const parts: string[] = []
  if (typeof d.peer_id === "string") parts.push(`${d.direction === "inbound" ? "from" : "to"} ${d.peer_id}`)
  if (typeof d.type === "string" && e.event.startsWith("message.")) parts.push(d.type)
  if (typeof d.text === "string") parts.push(JSON.stringify(d.text.length > 40 ? `${d.text.slice(0, 39)}…` : d.text))
  if (typeof d.status === "string" && !e.event.startsWith("message.")) parts.push(d.status)
  if (typeof d.name === "string") parts.push(`${d.name} ${String(d.previous_status ?? "")}→${String(d.status ?? "")}`)
  // message.failed carries the upstream's reason: the line should say why, not only that it failed.
  const error = d.error as { message?: unknown; meta_code?: unknown } | null | undefined
  if (typeof error?.message === "string") parts.push(`failed: ${error.message}${typeof error.meta_code === "number" ? ` (code ${error.meta_code})` : ""}`)
  if (d._test === true) parts.push("(test)")
  return parts.join(" ")
}
