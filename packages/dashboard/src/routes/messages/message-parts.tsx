import type { Message } from "../../api/types"

/** A message's status as a badge: delivered and read green, failed red, sent amber; inbound messages have none. */
export const MessageStatus = ({ status }: { status: string | null }) =>
  status === null
    ? <span className="muted">—</span>
    : <span className={`badge ${status === "delivered" || status === "read" ? "on" : status === "failed" ? "off" : "wait"}`}>{status}</span>

export const Direction = ({ direction }: { direction: string }) =>
  <span className={`badge dir-${direction}`}>{direction === "inbound" ? "← inbound" : "→ outbound"}</span>

/** What a message says: its text, or its type in brackets (an image, a template, ...). */
export const previewOf = (m: Pick<Message, "text" | "type" | "media_id">) =>
  m.text !== null && m.text !== "" ? m.text : `[${m.type}${m.media_id !== null ? " with media" : ""}]`

/** The upstream error of a failed message, in one line. */
export const errorOf = (m: Pick<Message, "error">) => {
  if (m.error === null) return undefined
  const e = m.error as Record<string, unknown>
  const text = [e.code, e.title ?? e.message].filter((x) => x !== undefined && x !== null).join(" ")
  return text === "" ? JSON.stringify(e) : text
}
