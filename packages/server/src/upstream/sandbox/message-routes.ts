/**
 * The simulator's `/{phone-number-id}/messages` and `/{ig-account-id}/messages`: a
 * WhatsApp or Instagram send (or read receipt, typing indicator, reaction) answered
 * as Meta does, its status callbacks scheduled, and the magic recipients' errors.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { randomBytes } from "node:crypto"
import { Clock, Effect } from "effect"
import { graphError, invalidParameter, type Json, json, magicError, readJson, str, unsupportedMethod } from "./graph-replies.js"
import { newMid, newWamid } from "./ids.js"
import { SANDBOX_ERROR_CASES, SANDBOX_MAGIC_RECIPIENTS } from "./magic.js"
import { chatStatusPayload, socialReadPayload } from "./payloads.js"
import type { SandboxState } from "./state.js"

type State = SandboxState

const CHAT_TYPES = new Set([
  "text",
  "template",
  "image",
  "video",
  "audio",
  "document",
  "sticker",
  "interactive",
  "location",
  "contacts",
  "reaction"
])

const ERROR_BY_RECIPIENT = new Map(SANDBOX_ERROR_CASES.map((c) => [c.recipient, c]))

/**
 * Meta's answer to a template send naming a template its WABA does not have in that
 * language: 404, code 132001 ("template name does not exist in the translation").
 */
const unknownTemplate = (state: State, pnid: string, template: Json) => {
  const name = str(template["name"]) ?? ""
  const language = str((template["language"] as Json | undefined)?.["code"]) ?? ""
  const waba = state.lineOf(pnid).waba_id
  const known = [...state.templates.values()].some((t) => t.waba_id === waba && t.name === name && t.language === language)
  if (known) return undefined
  return graphError({
    status: 404,
    code: 132001,
    message: "(#132001) Template name does not exist in the translation",
    details: `template name (${name}) does not exist in ${language}`
  })
}

const handleChatSend = (state: State, pnid: string, body: Json) =>
  Effect.gen(function*() {
    if (body["messaging_product"] !== "whatsapp") {
      return invalidParameter("messaging_product must be whatsapp")
    }
    if (body["status"] === "read") {
      const messageId = str(body["message_id"])
      if (!messageId) return invalidParameter("message_id is required")
      state.markedRead.push({ sender_id: pnid, message_id: messageId, typing: body["typing_indicator"] !== undefined })
      return json({ success: true })
    }
    const to = str(body["to"])
    const type = str(body["type"]) ?? "text"
    if (!to) {
      return graphError({ status: 400, code: 131008, message: "(#131008) Required parameter is missing", details: "to is required" })
    }
    const magic = ERROR_BY_RECIPIENT.get(to)
    if (magic) return magicError(magic)
    if (!CHAT_TYPES.has(type) || typeof body[type] !== "object" || body[type] === null) {
      return graphError({
        status: 400,
        code: 131009,
        message: "(#131009) Parameter value is not valid",
        details: `the ${type} object is missing or the type is not supported`
      })
    }
    if (type === "template") {
      const unknown = unknownTemplate(state, pnid, body[type] as Json)
      if (unknown !== undefined) return unknown
    }
    const id = newWamid(to)
    const now = yield* Clock.currentTimeMillis
    state.messages.push({ id, kind: "chat", sender_id: pnid, to, type, payload: body, at: now })
    const line = state.lineOf(pnid)
    const conversation_id = randomBytes(16).toString("hex")
    const status = (s: "sent" | "delivered" | "read" | "failed") => (nowMs: number) =>
      chatStatusPayload({ line, message_id: id, recipient_id: to, status: s, nowMs, conversation_id })
    const sequence = to === SANDBOX_MAGIC_RECIPIENTS.failedDelivery
      ? [status("sent"), status("failed")]
      : to === SANDBOX_MAGIC_RECIPIENTS.neverRead
      ? [status("sent"), status("delivered")]
      : [status("sent"), status("delivered"), status("read")]
    yield* state.scheduleCallbacks(sequence)
    return json({
      messaging_product: "whatsapp",
      contacts: [{ input: to, wa_id: to.replace(/\D/g, "") }],
      messages: [{ id, ...(type === "template" ? { message_status: "accepted" } : {}) }]
    })
  })

const handleSocialSend = (state: State, accountId: string, body: Json) =>
  Effect.gen(function*() {
    const recipient = str((body["recipient"] as Json | undefined)?.["id"])
    if (!recipient) return graphError({ status: 400, code: 100, message: "(#100) The parameter recipient is required" })
    const magic = ERROR_BY_RECIPIENT.get(recipient)
    if (magic) return magicError(magic)
    const action = str(body["sender_action"])
    if (action === "typing_on" || action === "typing_off" || action === "mark_seen") {
      state.markedRead.push({ sender_id: accountId, message_id: recipient, typing: action !== "mark_seen" })
      return json({ recipient_id: recipient })
    }
    const now = yield* Clock.currentTimeMillis
    if (action === "react" || action === "unreact") {
      state.messages.push({ id: "", kind: "social", sender_id: accountId, to: recipient, type: "reaction", payload: body, at: now })
      return json({ recipient_id: recipient })
    }
    const message = body["message"] as Json | undefined
    if (!message || (message["text"] === undefined && message["attachment"] === undefined)) {
      return graphError({ status: 400, code: 100, message: "(#100) Message is missing text or attachment" })
    }
    const attachment = message["attachment"] as Json | undefined
    const type = attachment ? String(attachment["type"]) : "text"
    const mid = newMid()
    state.messages.push({ id: mid, kind: "social", sender_id: accountId, to: recipient, type, payload: body, at: now })
    if (recipient !== SANDBOX_MAGIC_RECIPIENTS.neverRead && recipient !== SANDBOX_MAGIC_RECIPIENTS.failedDelivery) {
      yield* state.scheduleCallbacks([
        (nowMs) => socialReadPayload({ account_id: accountId, participant_id: recipient, mid, nowMs })
      ])
    }
    return json({ recipient_id: recipient, message_id: mid })
  })

/** A POST to a sender's `messages` edge: Instagram when it names a `recipient` or `sender_action`, else WhatsApp. */
export const sendMessage = (state: State, method: string, senderId: string, req: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (method !== "POST") return unsupportedMethod(method)
    const body = yield* readJson(req)
    return body["recipient"] !== undefined || body["sender_action"] !== undefined
      ? yield* handleSocialSend(state, senderId, body)
      : yield* handleChatSend(state, senderId, body)
  })
