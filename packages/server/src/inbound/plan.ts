import type { UpstreamErrorEnvelope } from "@platform/shared"
import { Option } from "effect"
import { newEventId } from "../outbox/events.js"
import { extractQualityRating, type MetaWebhookPayload, type WaMessage } from "../upstream/webhook-payload.js"
import { rawMember, type RawJson } from "./compact-json.js"
import type { ChannelLookup, RoutedChannel } from "./channel-directory.js"
import { failedStatusEnvelope } from "../outbox/statuses.js"
import { bodyFor, type Selection } from "./forward-body.js"
import { at, socialMessageContent, str, waMessageContent, wellFormedMessage, wellFormedStatus } from "./message-content.js"
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

/**
 * Turns a decoded Meta POST into the rows to write, routing every entry,
 * change, message and status by its upstream identifier (DESIGN §5).
 * `json` is the same body as plain JS (payload objects stored as received);
 * `raw` is its compact tree (forward bodies keep every number exactly).
 */
export const buildPlan = (
  payload: MetaWebhookPayload,
  json: unknown,
  raw: RawJson,
  lookup: ChannelLookup
): InboundPlan => {
  const messages: Array<MessageRow> = []
  const statuses: Array<StatusRow> = []
  const templates: Array<TemplateRow> = []
  const qualities: Array<QualityRow> = []
  const selections = new Map<number, Selection>()
  let seq = 0
  let routed = false

  const select = (channel: RoutedChannel, entry: number, change: number | "all", other: boolean) => {
    routed = true
    let s = selections.get(channel.id)
    if (s === undefined) {
      s = { entries: new Map(), other: false }
      selections.set(channel.id, s)
    }
    if (other) s.other = true
    if (change === "all") s.entries.set(entry, "all")
    else {
      const cur = s.entries.get(entry)
      if (cur === undefined) s.entries.set(entry, new Set([change]))
      else if (cur !== "all") cur.add(change)
    }
  }

  if (payload.object === "whatsapp_business_account") {
    payload.entry.forEach((entry, ei) => {
      entry.changes.forEach((change, ci) => {
        const rawValue = at(json, "entry", ei, "changes", ci, "value")
        const pn = phoneNumberIdOf(change)
        if (pn === undefined) {
          // Account-level fields carry no metadata: routed by the WABA id.
          const channels = lookup.byWabaId(entry.id)
          for (const channel of channels) select(channel, ei, ci, true)
          if (channels.length === 0) return
          if (change.field === "message_template_status_update") {
            const v = change.value as {
              event: string
              message_template_id: string | number
              message_template_name: string
              message_template_language: string
              reason?: string | null | undefined
            }
            const status = v.event.toLowerCase()
            const reason = v.reason === undefined || v.reason === null || v.reason === "NONE" ? null : v.reason
            templates.push({
              i: seq++,
              waba_id: entry.id,
              // The raw text keeps a numeric id exact even beyond 2^53.
              meta_template_id: rawTemplateId(raw, ei, ci) ?? String(v.message_template_id),
              name: v.message_template_name,
              language: v.message_template_language,
              status,
              reason,
              evt: newEventId()
            })
          } else if (change.field === "phone_number_quality_update") {
            const rating = extractQualityRating(change.value)
            if (Option.isSome(rating)) {
              const display = str(at(rawValue, "display_phone_number"))?.replace(/\D/g, "") ?? ""
              const digits = (c: RoutedChannel) => c.display_phone_number?.replace(/\D/g, "") ?? ""
              // Several numbers on one WABA: only the one the update names, when it is known.
              const named = channels.filter((c) => display !== "" && digits(c) === display)
              for (const channel of named.length > 0 ? named : channels) {
                qualities.push({ channel_id: channel.id, rating: rating.value })
              }
            }
          }
          return
        }
        const channel = lookup.byPhoneNumberId(pn)
        if (channel === undefined) return
        if (change.field === "messages") {
          const v = change.value as typeof change.value & {
            contacts?: ReadonlyArray<{ wa_id?: string; user_id?: string; profile?: { name?: string; username?: string } }>
            messages?: ReadonlyArray<WaMessage>
            statuses?: ReadonlyArray<{ id: string; status: string; errors?: ReadonlyArray<never> }>
          }
          const hasMessages = (v.messages?.length ?? 0) > 0
          const malformed = (v.messages?.some((m) => !wellFormedMessage(m, m.from)) ?? false) ||
            (v.statuses?.some((s) => !wellFormedStatus(s)) ?? false)
          select(channel, ei, ci, !hasMessages || (v.statuses?.length ?? 0) > 0 || malformed)
          v.messages?.forEach((m, mi) => {
            if (!wellFormedMessage(m, m.from)) return
            const contact = v.contacts?.find((c) => c.wa_id === m.from || c.user_id === m.from) ??
              (v.contacts?.length === 1 ? v.contacts[0] : undefined)
            const peer = m.from
            const { body, media_id, payload } = waMessageContent(m, at(rawValue, "messages", mi))
            messages.push({
              i: seq++,
              channel_id: channel.id,
              account_id: channel.developer_account_id,
              kind: "message",
              mid: m.id,
              peer,
              chat_id: peer,
              social_id: null,
              bsuid: contact?.user_id ?? null,
              phone: /^\d{5,}$/.test(contact?.wa_id ?? peer) ? (contact?.wa_id ?? peer) : null,
              username: contact?.profile?.username ?? null,
              profile_name: contact?.profile?.name ?? null,
              type: m.type,
              body,
              payload,
              media_id,
              evt: newEventId(),
              conv_evt: newEventId()
            })
          })
          for (const s of v.statuses ?? []) {
            if (!wellFormedStatus(s)) continue
            statuses.push({
              i: seq++,
              channel_id: channel.id,
              mid: s.id,
              status: s.status,
              envelope: s.status === "failed" ? failedStatusEnvelope(s.errors) : null,
              evt: newEventId()
            })
          }
        } else if (change.field === "smb_message_echoes") {
          const v = change.value as { message_echoes?: ReadonlyArray<WaMessage & { to?: string }> }
          select(channel, ei, ci, v.message_echoes?.some((m) => !wellFormedMessage(m, m.to)) ?? false)
          v.message_echoes?.forEach((m, mi) => {
            if (m.to === undefined || !wellFormedMessage(m, m.to)) return
            const { body, media_id, payload } = waMessageContent(m, at(rawValue, "message_echoes", mi))
            messages.push({
              i: seq++,
              channel_id: channel.id,
              account_id: channel.developer_account_id,
              kind: "echo",
              mid: m.id,
              peer: m.to,
              chat_id: m.to,
              social_id: null,
              bsuid: null,
              phone: /^\d{5,}$/.test(m.to) ? m.to : null,
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
        } else {
          select(channel, ei, ci, true)
        }
      })
    })
  } else {
    payload.entry.forEach((entry, ei) => {
      const channel = lookup.bySocialId(entry.id)
      if (channel === undefined) return
      let other = (entry.changes?.length ?? 0) > 0
      entry.messaging?.forEach((event, mi) => {
        const rawEvent = at(json, "entry", ei, "messaging", mi)
        const echo = event.message?.is_echo === true
        const peer = echo ? event.recipient.id : event.sender.id
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
        if (event.message !== undefined && event.message.is_deleted !== true) {
          const content = socialMessageContent(event, rawEvent)
          messages.push({
            ...base,
            i: seq++,
            mid: event.message.mid,
            type: content.type,
            body: content.body,
            payload: content.payload,
            evt: newEventId(),
            conv_evt: newEventId()
          })
        } else if (event.reaction !== undefined) {
          const r = event.reaction
          messages.push({
            ...base,
            i: seq++,
            // Reactions have no id of their own; this key is stable across Meta's retries.
            mid: `${r.mid}:${r.action}:${event.sender.id}:${event.timestamp ?? ""}`,
            type: "reaction",
            body: r.action === "unreact" ? null : (r.emoji ?? r.reaction ?? null),
            payload: { message_id: r.mid, action: r.action, reaction: r.reaction ?? null, emoji: r.emoji ?? null },
            evt: newEventId(),
            conv_evt: newEventId()
          })
        } else if (event.postback !== undefined) {
          const p = event.postback
          messages.push({
            ...base,
            i: seq++,
            mid: p.mid ?? `postback:${event.sender.id}:${event.timestamp ?? ""}`,
            type: "postback",
            body: p.title ?? null,
            payload: { title: p.title ?? null, payload: p.payload ?? null },
            evt: newEventId(),
            conv_evt: newEventId()
          })
        } else if (event.read?.mid !== undefined) {
          other = true
          statuses.push({ i: seq++, channel_id: channel.id, mid: event.read.mid, status: "read", envelope: null, evt: newEventId() })
        } else if (event.delivery !== undefined) {
          other = true
          for (const mid of event.delivery.mids ?? []) {
            statuses.push({ i: seq++, channel_id: channel.id, mid, status: "delivered", envelope: null, evt: newEventId() })
          }
        } else {
          other = true
        }
      })
      select(channel, ei, "all", other || (entry.messaging?.length ?? 0) === 0)
    })
  }

  const forwards: Array<ForwardRow> = []
  if (routed) {
    const entryNode = rawMember(raw, "entry")
    const totalEntries = entryNode?.kind === "array" ? entryNode.items.length : 0
    let i = 0
    for (const [channelId, selection] of selections) {
      forwards.push({ i: i++, channel_id: channelId, body: bodyFor(raw, entryNode, totalEntries, selection), other: selection.other })
    }
  }
  return { routed, messages, statuses, templates, qualities, forwards }
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
