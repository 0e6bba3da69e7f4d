import { JsonInteger } from "../hub-signature.js"
import { SANDBOX_FAILED_STATUS_ERROR } from "./magic.js"
import { newMid, newWamid } from "./ids.js"

/*
 * Webhook bodies exactly as Meta posts them to `/webhook/incoming`
 * (WhatsApp Cloud API "Webhooks" and Instagram Messaging "Webhook events").
 */

const seconds = (ms: number) => String(Math.floor(ms / 1000))

export interface ChatLine {
  readonly waba_id: string
  readonly phone_number_id: string
  readonly display_phone_number: string
}

const whatsappEnvelope = (wabaId: string, field: string, value: unknown, nowMs: number) => ({
  object: "whatsapp_business_account",
  entry: [{ id: wabaId, time: Math.floor(nowMs / 1000), changes: [{ value, field }] }]
})

export const chatStatusPayload = (options: {
  readonly line: ChatLine
  readonly message_id: string
  readonly recipient_id: string
  readonly status: "sent" | "delivered" | "read" | "failed"
  readonly nowMs: number
  readonly conversation_id: string
}) => {
  const status: Record<string, unknown> = {
    id: options.message_id,
    status: options.status,
    timestamp: seconds(options.nowMs),
    recipient_id: options.recipient_id
  }
  if (options.status === "sent" || options.status === "delivered") {
    status["conversation"] = {
      id: options.conversation_id,
      ...(options.status === "sent" ? { expiration_timestamp: seconds(options.nowMs + 86_400_000) } : {}),
      origin: { type: "service" }
    }
    status["pricing"] = { billable: false, pricing_model: "PMP", category: "service", type: "free_customer_service" }
  }
  if (options.status === "failed") status["errors"] = [SANDBOX_FAILED_STATUS_ERROR]
  return whatsappEnvelope(options.line.waba_id, "messages", {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: options.line.display_phone_number, phone_number_id: options.line.phone_number_id },
    statuses: [status]
  }, options.nowMs)
}

export const chatInboundPayload = (options: {
  readonly line: ChatLine
  readonly from: string
  readonly profile_name: string
  readonly type: string
  readonly content: unknown
  readonly context_message_id?: string | undefined
  readonly nowMs: number
  readonly message_id?: string | undefined
}) => {
  const id = options.message_id ?? newWamid(options.from)
  return {
    id,
    body: whatsappEnvelope(options.line.waba_id, "messages", {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: options.line.display_phone_number, phone_number_id: options.line.phone_number_id },
      contacts: [{ profile: { name: options.profile_name }, wa_id: options.from }],
      messages: [{
        ...(options.context_message_id
          ? { context: { from: options.line.display_phone_number, id: options.context_message_id } }
          : {}),
        from: options.from,
        id,
        timestamp: seconds(options.nowMs),
        type: options.type,
        [options.type]: options.content
      }]
    }, options.nowMs)
  }
}

/** The owner's own message written in the WhatsApp Business app (coexistence): an `smb_message_echoes` change to `to`. */
export const chatEchoPayload = (options: {
  readonly line: ChatLine
  readonly to: string
  readonly type: string
  readonly content: unknown
  readonly nowMs: number
}) => {
  const id = newWamid(options.to)
  return {
    id,
    body: whatsappEnvelope(options.line.waba_id, "smb_message_echoes", {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: options.line.display_phone_number, phone_number_id: options.line.phone_number_id },
      message_echoes: [{
        from: options.line.display_phone_number,
        to: options.to,
        id,
        timestamp: seconds(options.nowMs),
        type: options.type,
        [options.type]: options.content
      }]
    }, options.nowMs)
  }
}

export const templateStatusPayload = (options: {
  readonly waba_id: string
  readonly template_id: string
  readonly name: string
  readonly language: string
  readonly event: "APPROVED" | "REJECTED" | "PENDING" | "PAUSED" | "DISABLED"
  readonly reason: string
  readonly nowMs: number
}) =>
  whatsappEnvelope(options.waba_id, "message_template_status_update", {
    event: options.event,
    message_template_id: new JsonInteger(options.template_id),
    message_template_name: options.name,
    message_template_language: options.language,
    reason: options.reason
  }, options.nowMs)

export const qualityUpdatePayload = (options: {
  readonly waba_id: string
  readonly display_phone_number: string
  readonly event: "FLAGGED" | "UNFLAGGED" | "UPGRADE" | "DOWNGRADE"
  readonly current_limit: string
  readonly nowMs: number
}) =>
  whatsappEnvelope(options.waba_id, "phone_number_quality_update", {
    display_phone_number: options.display_phone_number,
    event: options.event,
    current_limit: options.current_limit
  }, options.nowMs)

const messagingEnvelope = (object: "instagram" | "page", accountId: string, event: unknown, nowMs: number) => ({
  object,
  entry: [{ time: nowMs, id: accountId, messaging: [event] }]
})

export const socialReadPayload = (options: {
  readonly account_id: string
  readonly participant_id: string
  readonly mid: string
  readonly nowMs: number
}) =>
  messagingEnvelope("instagram", options.account_id, {
    sender: { id: options.participant_id },
    recipient: { id: options.account_id },
    timestamp: options.nowMs,
    read: { mid: options.mid }
  }, options.nowMs)

export const socialInboundPayload = (options: {
  readonly account_id: string
  readonly from: string
  readonly type: string
  readonly text?: string | undefined
  readonly content?: unknown
  readonly reply_to_mid?: string | undefined
  readonly object?: "instagram" | "page" | undefined
  readonly nowMs: number
}) => {
  const mid = newMid()
  const base = { sender: { id: options.from }, recipient: { id: options.account_id }, timestamp: options.nowMs }
  const content = (options.content ?? {}) as Record<string, unknown>
  let event: Record<string, unknown>
  if (options.type === "reaction") {
    event = {
      ...base,
      reaction: {
        mid: String(content["message_id"] ?? content["mid"] ?? ""),
        action: content["emoji"] === "" ? "unreact" : "react",
        reaction: "love",
        emoji: typeof content["emoji"] === "string" && content["emoji"] !== "" ? content["emoji"] : "\u2764\ufe0f"
      }
    }
  } else if (options.type === "text") {
    event = {
      ...base,
      message: {
        mid,
        text: options.text ?? String(content["body"] ?? ""),
        ...(options.reply_to_mid ? { reply_to: { mid: options.reply_to_mid } } : {})
      }
    }
  } else {
    event = {
      ...base,
      message: {
        mid,
        attachments: [{ type: options.type, payload: content }],
        ...(options.reply_to_mid ? { reply_to: { mid: options.reply_to_mid } } : {})
      }
    }
  }
  return { id: mid, body: messagingEnvelope(options.object ?? "instagram", options.account_id, event, options.nowMs) }
}
