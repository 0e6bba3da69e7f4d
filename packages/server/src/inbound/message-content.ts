import type { MessagingEvent, WaMessage } from "../upstream/webhook-payload.js"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
export const str = (u: unknown): string | null => (typeof u === "string" ? u : null)
export const at = (u: unknown, ...path: Array<string | number>): unknown => {
  let cur = u
  for (const key of path) {
    if (typeof cur !== "object" || cur === null) return undefined
    cur = (cur as Record<string | number, unknown>)[key]
  }
  return cur
}

const MEDIA_TYPES = new Set(["image", "video", "audio", "document", "sticker"])

/*
 * A `messages` change whose value does not decode still reaches the plan through
 * the catch-all change member, typed but unchecked: an item without the strings
 * its row needs (an id above all) would fail the whole statement, a 500 that Meta
 * retries for days. Such items are skipped and the change is forwarded as it came.
 */
const isString = (u: unknown): u is string => typeof u === "string"
export const wellFormedMessage = (m: { readonly id?: unknown; readonly type?: unknown }, peer: unknown) =>
  isString(m.id) && isString(m.type) && isString(peer)
export const wellFormedStatus = (s: { readonly id?: unknown; readonly status?: unknown }) => isString(s.id) && isString(s.status)

/** The text a WhatsApp message shows, its media id and its stored payload (the type's object plus context). */
export const waMessageContent = (
  m: WaMessage,
  raw: unknown
): { body: string | null; media_id: string | null; payload: unknown } => {
  const typeObj = at(raw, m.type)
  let body: string | null = null
  let media_id: string | null = null
  switch (m.type) {
    case "text":
      body = m.text?.body ?? null
      break
    case "interactive":
      body = m.interactive?.button_reply?.title ?? m.interactive?.list_reply?.title ?? null
      break
    case "button":
      body = m.button?.text ?? null
      break
    case "reaction":
      // A removed reaction arrives without an emoji.
      body = m.reaction?.emoji ?? null
      break
    case "location":
      body = m.location?.name ?? m.location?.address ?? null
      break
    case "order":
      body = str(at(typeObj, "text"))
      break
    default:
      if (MEDIA_TYPES.has(m.type)) {
        body = str(at(typeObj, "caption"))
        media_id = str(at(typeObj, "id"))
      }
  }
  const payload: Record<string, unknown> = isObject(typeObj)
    ? { ...typeObj }
    : typeObj === undefined
    ? {}
    : { [m.type]: typeObj }
  for (const extra of ["context", "referral", "errors", "system", "identity"]) {
    const v = at(raw, extra)
    if (v !== undefined && !(extra in payload)) payload[extra] = v
  }
  return { body, media_id, payload }
}

/** Type, text and payload of an Instagram / Messenger message event. */
export const socialMessageContent = (event: MessagingEvent, raw: unknown) => {
  const message = event.message!
  const rawMessage = at(raw, "message")
  const attachments = message.attachments ?? []
  const type = attachments.length > 0 ? attachments[0]!.type : message.text !== undefined ? "text" : "unsupported"
  const payload: Record<string, unknown> = {}
  if (isObject(rawMessage)) {
    for (const [k, v] of Object.entries(rawMessage)) if (k !== "mid" && k !== "is_echo") payload[k] = v
  }
  return { type, body: message.text ?? null, payload }
}
