import { rawMember, type RawJson } from "./compact-json.js"

/*
 * Reading Meta's webhook JSON as it came, never trusting its shape: every helper takes
 * `unknown` and answers null or an empty list where a value is not what Meta documents,
 * so that a POST of any shape is planned (its wrong parts skipped or parked) and never
 * throws: a throw was a 500, which Meta retries for days.
 */

export type JsonObject = Readonly<Record<string, unknown>>

export const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
export const str = (u: unknown): string | null => (typeof u === "string" ? u : null)
export const at = (u: unknown, ...path: Array<string | number>): unknown => {
  let cur = u
  for (const key of path) {
    if (typeof cur !== "object" || cur === null) return undefined
    cur = (cur as Record<string | number, unknown>)[key]
  }
  return cur
}

/**
 * A list member of the payload: absent is empty; present and not an array is empty too,
 * and `reasons` says so (the part is parked, see plan.ts).
 */
export const listAt = (value: unknown, where: string, reasons: Array<string>): ReadonlyArray<unknown> => {
  if (value === undefined) return []
  if (Array.isArray(value)) return value
  reasons.push(`${where} is not an array`)
  return []
}

const MEDIA_TYPES = new Set(["image", "video", "audio", "document", "sticker"])

/*
 * An item without the strings its row needs (an id above all: the dedupe key) would fail
 * the whole statement; such items are skipped, and their change is parked and forwarded
 * as it came.
 */
export const wellFormedMessage = (m: unknown, peer: unknown): m is JsonObject & { readonly id: string; readonly type: string } =>
  isObject(m) && typeof m.id === "string" && typeof m.type === "string" && typeof peer === "string"
export const wellFormedStatus = (s: unknown): s is JsonObject & { readonly id: string; readonly status: string } =>
  isObject(s) && typeof s.id === "string" && typeof s.status === "string"

/** The message's context, referral, errors, system and identity beside the type's object. */
const withExtras = (m: JsonObject, payload: Record<string, unknown>) => {
  for (const extra of ["context", "referral", "errors", "system", "identity"]) {
    const v = m[extra]
    if (v !== undefined && !(extra in payload)) payload[extra] = v
  }
  return payload
}

/** The text a WhatsApp message shows, its media id and its stored payload (the type's object plus context). */
export const waMessageContent = (
  m: JsonObject & { readonly type: string }
): { body: string | null; media_id: string | null; payload: unknown } => {
  const typeObj = m[m.type]
  let body: string | null = null
  let media_id: string | null = null
  switch (m.type) {
    case "text":
      body = str(at(typeObj, "body"))
      break
    case "interactive":
      body = str(at(typeObj, "button_reply", "title")) ?? str(at(typeObj, "list_reply", "title"))
      break
    case "button":
      body = str(at(typeObj, "text"))
      break
    case "reaction":
      // A removed reaction arrives without an emoji.
      body = str(at(typeObj, "emoji"))
      break
    case "location":
      body = str(at(typeObj, "name")) ?? str(at(typeObj, "address"))
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
  // A text's words are `payload.text` on every channel kind, SPEC's name (the send's `text`, the events'
  // `text`); WhatsApp calls them `text.body`, Instagram and Messenger `message.text`.
  if (m.type === "text" && "body" in payload && !("text" in payload)) {
    const { body: words, ...rest } = payload
    return { body, media_id, payload: withExtras(m, { text: words, ...rest }) }
  }
  return { body, media_id, payload: withExtras(m, payload) }
}


/** Type, text and payload of an Instagram / Messenger message object. */
export const socialMessageContent = (message: JsonObject) => {
  const attachments = Array.isArray(message.attachments) ? message.attachments : []
  const text = str(message.text)
  const type = attachments.length > 0
    ? str(at(attachments[0], "type")) ?? "unsupported"
    : text !== null
    ? "text"
    : "unsupported"
  const payload: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(message)) if (k !== "mid" && k !== "is_echo") payload[k] = v
  return { type, body: text, payload }
}

/** A template status update's row, or undefined when the value lacks what it needs. */
export const templateUpdate = (value: unknown, raw: RawJson, wabaId: string, entry: number, change: number) => {
  const event = str(at(value, "event"))
  const name = str(at(value, "message_template_name"))
  const language = str(at(value, "message_template_language"))
  const id = at(value, "message_template_id")
  if (event === null || name === null || language === null || (typeof id !== "string" && typeof id !== "number")) return undefined
  const reason = str(at(value, "reason"))
  return {
    waba_id: wabaId,
    // The raw text keeps a numeric id exact even beyond 2^53.
    meta_template_id: rawTemplateId(raw, entry, change) ?? String(id),
    name,
    language,
    status: event.toLowerCase(),
    reason: reason === null || reason === "NONE" ? null : reason
  }
}

const rawTemplateId = (raw: RawJson, entry: number, change: number): string | undefined => {
  const entries = rawMember(raw, "entry")
  const e = entries?.kind === "array" ? entries.items[entry] : undefined
  const changes = rawMember(e, "changes")
  const c = changes?.kind === "array" ? changes.items[change] : undefined
  const id = rawMember(rawMember(c, "value"), "message_template_id")
  if (id === undefined || id.kind !== "scalar") return undefined
  return id.text.startsWith("\"") ? (JSON.parse(id.text) as string) : id.text
}
