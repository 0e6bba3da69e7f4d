import type { UpstreamErrorEnvelope } from "@platform/shared"
import { Option } from "effect"
import { newEventId } from "../outbox/events.js"
import { failedStatusEnvelope } from "../outbox/statuses.js"
import { extractQualityRating } from "../upstream/webhook-payload.js"
import type { ChannelLookup, RoutedChannel } from "./channel-directory.js"
import { rawMember, type RawJson } from "./compact-json.js"
import { bodyFor, type Selection } from "./forward-body.js"
import {
  at,
  isObject,
  type JsonObject,
  listAt,
  socialMessageContent,
  str,
  templateUpdate,
  waMessageContent,
  wellFormedMessage,
  wellFormedStatus
} from "./message-content.js"
import { phoneNumberIdOf } from "./upstream-identifiers.js"

/** One inbound message or owner echo to persist (dedupe key: channel + mid). */
export interface MessageRow {
  readonly i: number
  readonly channel_id: number
  readonly account_id: number
  readonly kind: "message" | "echo"
  readonly mid: string
  readonly peer: string
  readonly chat_id: string | null
  readonly social_id: string | null
  readonly bsuid: string | null
  readonly phone: string | null
  readonly username: string | null
  readonly profile_name: string | null
  readonly type: string
  readonly body: string | null
  readonly payload: unknown
  readonly media_id: string | null
  readonly evt: string
  readonly conv_evt: string
}

export interface StatusRow {
  readonly i: number
  readonly channel_id: number
  readonly mid: string
  readonly status: string
  readonly envelope: UpstreamErrorEnvelope | null
  readonly evt: string
}

export interface TemplateRow {
  readonly i: number
  readonly waba_id: string
  readonly meta_template_id: string
  readonly name: string
  readonly language: string
  readonly status: string
  readonly reason: string | null
  readonly evt: string
}

export interface QualityRow {
  readonly channel_id: number
  readonly rating: string
}

/** The raw-forward body of one channel; `other` when it carries anything but user messages. */
export interface ForwardRow {
  readonly i: number
  readonly channel_id: number
  readonly body: string
  readonly other: boolean
  /**
   * Why parts of the body are not the shape Meta documents (they were skipped), or null.
   * A parked body is recorded even for a channel without raw forward (statement.ts).
   */
  readonly parked: string | null
}

export interface InboundPlan {
  /** False when no part of the POST belongs to a platform channel. */
  readonly routed: boolean
  readonly messages: ReadonlyArray<MessageRow>
  readonly statuses: ReadonlyArray<StatusRow>
  readonly templates: ReadonlyArray<TemplateRow>
  readonly qualities: ReadonlyArray<QualityRow>
  readonly forwards: ReadonlyArray<ForwardRow>
}

/** The most of a parked body's reasons kept (the first ones; a POST can name thousands). */
const PARKED_REASONS_MAX = 10

/**
 * Turns a Meta POST, as parsed JSON of any shape, into the rows to write, routing every
 * entry, change, message and status by its upstream identifier (DESIGN §5). `raw` is its
 * compact tree (forward bodies keep every number exactly). Total over any JSON: a part
 * that is not the shape Meta documents is skipped and its change (or social entry) parked
 * with the reason, forwarded as it came; nothing here throws.
 */
export const buildPlan = (json: unknown, raw: RawJson, lookup: ChannelLookup): InboundPlan => {
  const messages: Array<MessageRow> = []
  const statuses: Array<StatusRow> = []
  const templates: Array<TemplateRow> = []
  const qualities: Array<QualityRow> = []
  const selections = new Map<number, Selection & { readonly reasons: Array<string> }>()
  let seq = 0
  let routed = false

  const select = (
    channel: RoutedChannel,
    entry: number,
    change: number | "all",
    other: boolean,
    reasons: ReadonlyArray<string> = []
  ) => {
    routed = true
    let s = selections.get(channel.id)
    if (s === undefined) {
      s = { entries: new Map(), other: false, reasons: [] }
      selections.set(channel.id, s)
    }
    if (other || reasons.length > 0) s.other = true
    s.reasons.push(...reasons)
    if (change === "all") s.entries.set(entry, "all")
    else {
      const cur = s.entries.get(entry)
      if (cur === undefined) s.entries.set(entry, new Set([change]))
      else if (cur !== "all") cur.add(change)
    }
  }

  const object = at(json, "object")
  const entries = at(json, "entry")
  const entryList = Array.isArray(entries) ? entries : []

  if (object === "whatsapp_business_account") {
    entryList.forEach((entry, ei) => {
      if (!isObject(entry)) return
      const wabaId = str(entry.id)
      if (!Array.isArray(entry.changes)) {
        // Nothing names a phone number: the WABA's channels get the entry, parked.
        for (const channel of wabaId === null ? [] : lookup.byWabaId(wabaId)) {
          select(channel, ei, "all", true, [`entry[${ei}].changes is not an array`])
        }
        return
      }
      entry.changes.forEach((change: unknown, ci) => {
        const where = `entry[${ei}].changes[${ci}]`
        const field = at(change, "field")
        const value = at(change, "value")
        const pn = phoneNumberIdOf(value)
        if (pn === undefined) {
          // Account-level fields carry no metadata: routed by the WABA id.
          const channels = wabaId === null ? [] : lookup.byWabaId(wabaId)
          if (channels.length === 0) return
          const reasons: Array<string> = []
          if (typeof field !== "string") reasons.push(`${where}.field is not a string`)
          else if (field === "messages" || field === "smb_message_echoes") {
            reasons.push(`${where}.value.metadata.phone_number_id is not a string`)
          } else if (field === "message_template_status_update") {
            const row = templateUpdate(value, raw, wabaId!, ei, ci)
            if (row === undefined) {
              reasons.push(`${where}.value lacks the strings of a template status update (event, name, language, id)`)
            } else templates.push({ ...row, i: seq++, evt: newEventId() })
          } else if (field === "phone_number_quality_update") {
            const rating = extractQualityRating(value)
            if (Option.isSome(rating)) {
              const display = str(at(value, "display_phone_number"))?.replace(/\D/g, "") ?? ""
              const digits = (c: RoutedChannel) => c.display_phone_number?.replace(/\D/g, "") ?? ""
              // Several numbers on one WABA: only the one the update names, when it is known.
              const named = channels.filter((c) => display !== "" && digits(c) === display)
              for (const channel of named.length > 0 ? named : channels) {
                qualities.push({ channel_id: channel.id, rating: rating.value })
              }
            }
          }
          for (const channel of channels) select(channel, ei, ci, true, reasons)
          return
        }
        const channel = lookup.byPhoneNumberId(pn)
        if (channel === undefined) return
        const v = value as JsonObject
        if (field === "messages") {
          const reasons: Array<string> = []
          const items = listAt(v.messages, `${where}.value.messages`, reasons)
          const statusItems = listAt(v.statuses, `${where}.value.statuses`, reasons)
          const contacts = listAt(v.contacts, `${where}.value.contacts`, reasons).filter(isObject)
          items.forEach((m, mi) => {
            if (!wellFormedMessage(m, at(m, "from"))) {
              reasons.push(`${where}.value.messages[${mi}] lacks a string id, from or type`)
              return
            }
            const peer = m.from as string
            const contact = contacts.find((c) => c.wa_id === peer || c.user_id === peer) ??
              (contacts.length === 1 ? contacts[0] : undefined)
            const waId = str(contact?.wa_id) ?? peer
            const { body, media_id, payload } = waMessageContent(m)
            messages.push({
              i: seq++,
              channel_id: channel.id,
              account_id: channel.developer_account_id,
              kind: "message",
              mid: m.id,
              peer,
              chat_id: peer,
              social_id: null,
              bsuid: str(contact?.user_id),
              phone: /^\d{5,}$/.test(waId) ? waId : null,
              username: str(at(contact, "profile", "username")),
              profile_name: str(at(contact, "profile", "name")),
              type: m.type,
              body,
              payload,
              media_id,
              evt: newEventId(),
              conv_evt: newEventId()
            })
          })
          statusItems.forEach((s, si) => {
            if (!wellFormedStatus(s)) {
              reasons.push(`${where}.value.statuses[${si}] lacks a string id or status`)
              return
            }
            statuses.push({
              i: seq++,
              channel_id: channel.id,
              mid: s.id,
              status: s.status,
              envelope: s.status === "failed" ? failedStatusEnvelope(s.errors) : null,
              evt: newEventId()
            })
          })
          select(channel, ei, ci, items.length === 0 || statusItems.length > 0, reasons)
        } else if (field === "smb_message_echoes") {
          const reasons: Array<string> = []
          listAt(v.message_echoes, `${where}.value.message_echoes`, reasons).forEach((m, mi) => {
            const to = at(m, "to")
            if (!wellFormedMessage(m, to)) {
              reasons.push(`${where}.value.message_echoes[${mi}] lacks a string id, to or type`)
              return
            }
            const peer = to as string
            const { body, media_id, payload } = waMessageContent(m)
            messages.push({
              i: seq++,
              channel_id: channel.id,
              account_id: channel.developer_account_id,
              kind: "echo",
              mid: m.id,
              peer,
              chat_id: peer,
              social_id: null,
              bsuid: null,
              phone: /^\d{5,}$/.test(peer) ? peer : null,
              username: null,
              profile_name: null,
              type: m.type,
              body,
              payload,
              media_id,
              evt: newEventId(),
              conv_evt: newEventId()
            })
          })
          select(channel, ei, ci, false, reasons)
        } else {
          select(channel, ei, ci, true, typeof field === "string" ? [] : [`${where}.field is not a string`])
        }
      })
    })
  } else if (object === "instagram" || object === "page") {
    entryList.forEach((entry, ei) => {
      const id = str(at(entry, "id"))
      const channel = id === null ? undefined : lookup.bySocialId(id)
      if (channel === undefined) return
      const e = entry as JsonObject
      const reasons: Array<string> = []
      const events = listAt(e.messaging, `entry[${ei}].messaging`, reasons)
      let other = listAt(e.changes, `entry[${ei}].changes`, reasons).length > 0
      events.forEach((event, mi) => {
        const where = `entry[${ei}].messaging[${mi}]`
        const sender = str(at(event, "sender", "id"))
        const recipient = str(at(event, "recipient", "id"))
        if (!isObject(event) || sender === null || recipient === null) {
          reasons.push(`${where} lacks a string sender.id or recipient.id`)
          return
        }
        const message = event.message
        const echo = at(message, "is_echo") === true
        const peer = echo ? recipient : sender
        const timestamp = typeof event.timestamp === "number" || typeof event.timestamp === "string" ? String(event.timestamp) : ""
        const base = {
          channel_id: channel.id,
          account_id: channel.developer_account_id,
          kind: echo ? "echo" as const : "message" as const,
          peer,
          chat_id: null,
          social_id: peer,
          bsuid: null,
          phone: null,
          username: null,
          profile_name: null,
          media_id: null
        }
        if (message !== undefined && at(message, "is_deleted") !== true) {
          const mid = str(at(message, "mid"))
          if (!isObject(message) || mid === null) {
            reasons.push(`${where}.message lacks a string mid`)
            return
          }
          const content = socialMessageContent(message)
          messages.push({
            ...base,
            i: seq++,
            mid,
            type: content.type,
            body: content.body,
            payload: content.payload,
            evt: newEventId(),
            conv_evt: newEventId()
          })
        } else if (event.reaction !== undefined) {
          const r = event.reaction
          const reacted = str(at(r, "mid"))
          const action = str(at(r, "action"))
          if (reacted === null || action === null) {
            reasons.push(`${where}.reaction lacks a string mid or action`)
            return
          }
          const reaction = str(at(r, "reaction"))
          const emoji = str(at(r, "emoji"))
          messages.push({
            ...base,
            i: seq++,
            // Reactions have no id of their own; this key is stable across Meta's retries.
            mid: `${reacted}:${action}:${sender}:${timestamp}`,
            type: "reaction",
            body: action === "unreact" ? null : (emoji ?? reaction),
            payload: { message_id: reacted, action, reaction, emoji },
            evt: newEventId(),
            conv_evt: newEventId()
          })
        } else if (event.postback !== undefined) {
          const p = event.postback
          const title = str(at(p, "title"))
          messages.push({
            ...base,
            i: seq++,
            mid: str(at(p, "mid")) ?? `postback:${sender}:${timestamp}`,
            type: "postback",
            body: title,
            payload: { title, payload: str(at(p, "payload")) },
            evt: newEventId(),
            conv_evt: newEventId()
          })
        } else if (str(at(event.read, "mid")) !== null) {
          other = true
          statuses.push({ i: seq++, channel_id: channel.id, mid: str(at(event.read, "mid"))!, status: "read", envelope: null, evt: newEventId() })
        } else if (event.delivery !== undefined) {
          other = true
          const mids = at(event.delivery, "mids")
          for (const mid of Array.isArray(mids) ? mids : []) {
            if (typeof mid !== "string") continue
            statuses.push({ i: seq++, channel_id: channel.id, mid, status: "delivered", envelope: null, evt: newEventId() })
          }
        } else {
          other = true
        }
      })
      select(channel, ei, "all", other || events.length === 0, reasons)
    })
  }

  const forwards: Array<ForwardRow> = []
  if (routed) {
    const entryNode = rawMember(raw, "entry")
    const totalEntries = entryNode?.kind === "array" ? entryNode.items.length : 0
    let i = 0
    for (const [channelId, selection] of selections) {
      const reasons = selection.reasons
      forwards.push({
        i: i++,
        channel_id: channelId,
        body: bodyFor(raw, entryNode, totalEntries, selection),
        other: selection.other,
        parked: reasons.length === 0
          ? null
          : reasons.slice(0, PARKED_REASONS_MAX).join("; ") +
            (reasons.length > PARKED_REASONS_MAX ? `; and ${reasons.length - PARKED_REASONS_MAX} more` : "")
      })
    }
  }
  return { routed, messages, statuses, templates, qualities, forwards }
}
