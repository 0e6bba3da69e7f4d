import type { Platform } from "@platform/sdk"
import { CliError } from "../../context.js"
import type { Context } from "../../context.js"
import { dashboard } from "../../dashboard/session.js"
import type { DashboardChannel } from "../channels/connect.js"

/** What a trigger did, for the line (and the --json document) it prints. */
export interface Happened {
  readonly did: string
  /** The events it makes happen, the one asked for among them. */
  readonly events: ReadonlyArray<string>
  readonly detail: Record<string, unknown>
  /** A note on what comes later (conversation.inactive waits for the subscription's inactivity_minutes). */
  readonly note?: string
}

interface Tools {
  readonly ctx: Context
  readonly client: Platform
  readonly channelId: number
}

/** A fresh peer number for each trigger, so each one opens its own conversation. */
const newPeer = () => `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`
const TEXT = "Triggered by `platform trigger`"
/** The sandbox's magic recipient whose message is accepted, then fails (code 131026): see the sandbox's README. */
const FAILING_RECIPIENT = "15550131026"

const inbound = async ({ ctx, channelId }: Tools, from: string, echo = false) =>
  dashboard<{ message_id: string; inbound_enabled: boolean }>(ctx, "POST", "/platform/dashboard/sandbox/inbound", {
    channel_id: channelId,
    from,
    text: TEXT,
    ...(echo ? { echo: true } : {})
  }).then((r) => {
    if (!r.inbound_enabled) throw new CliError(`Channel ${channelId} has inbound switched off, so nothing happens: \`platform channels inbound ${channelId} --on\` first.`)
    return r.message_id
  })

const send = async ({ client, channelId }: Tools, to: string) => (await client.messages.send({ channel_id: channelId, to, type: "text", text: TEXT })).message_id

const received = async (t: Tools): Promise<Happened> => {
  const from = newPeer()
  const id = await inbound(t, from)
  return { did: `injected an inbound text from ${from}`, events: ["message.received", "conversation.created"], detail: { from, message_id: id } }
}

const sent = async (t: Tools): Promise<Happened> => {
  const to = newPeer()
  const id = await send(t, to)
  return { did: `sent a text to ${to}; the sandbox confirms it sent, delivered and read`, events: ["message.sent", "message.delivered", "message.read"], detail: { to, message_id: id } }
}

const failed = async (t: Tools): Promise<Happened> => {
  const id = await send(t, FAILING_RECIPIENT)
  return { did: `sent a text to ${FAILING_RECIPIENT}, which the sandbox accepts and then fails (131026)`, events: ["message.sent", "message.failed"], detail: { to: FAILING_RECIPIENT, message_id: id } }
}

const echo = async (t: Tools): Promise<Happened> => {
  const to = newPeer()
  const id = await inbound(t, to, true)
  return { did: `injected the owner's own message to ${to}, written in the chat app`, events: ["message.echo", "conversation.created"], detail: { to, message_id: id } }
}

const ended = async (t: Tools): Promise<Happened> => {
  const from = newPeer()
  await inbound(t, from)
  // The inbound pipeline writes the conversation just after the upstream's post is answered.
  for (let i = 0; i < 50; i++) {
    const page = await t.client.conversations.list({ channel_id: t.channelId, peer_id: from })
    const conversation = page.data[0]
    if (conversation !== undefined) {
      await t.client.conversations.update(conversation.id, { status: "ended" })
      return { did: `opened a conversation with ${from} and ended it`, events: ["message.received", "conversation.created", "conversation.ended"], detail: { from, conversation_id: conversation.id } }
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new CliError(`The conversation with ${from} did not appear within 5 s.`)
}

const inactive = async (t: Tools): Promise<Happened> => {
  const from = newPeer()
  await inbound(t, from)
  const subscriptions = await t.client.webhooks.subscriptions.list({ limit: 100 })
  const watching = subscriptions.data.filter((s) => s.inactivity_minutes != null && s.is_active)
  const when = watching.length === 0
    ? "no active subscription has --inactivity-minutes yet: set one with `platform subscriptions update <id> --inactivity-minutes 1`"
    : `subscription ${watching.map((s) => `${s.id} (${s.inactivity_minutes} min)`).join(", ")} gets it once the conversation has been idle that long, within 60 s of the sweep`
  return { did: `opened a conversation with ${from} and left it idle`, events: ["conversation.created", "conversation.inactive"], detail: { from }, note: `conversation.inactive comes later: ${when}.` }
}

const templateStatus = async (t: Tools): Promise<Happened> => {
  const name = `trigger_${Date.now().toString(36)}`
  const template = await t.client.templates.create({ channel_id: t.channelId, name, language_code: "en_US", category: "utility", body_text: "Triggered by platform trigger" })
  return { did: `created template ${name}; the sandbox approves it a moment later`, events: ["template.status_changed"], detail: { template_id: template.id, name } }
}

const channelEvents = async ({ ctx }: Tools): Promise<Happened> => {
  const phone = String(100000000000000 + Math.floor(Math.random() * 1e12))
  const channel = await dashboard<DashboardChannel>(ctx, "POST", "/platform/dashboard/channels/connect/chat", { code: "sandbox-code", phone_number_id: phone, waba_id: `WABA${phone}` })
  await dashboard(ctx, "DELETE", `/platform/dashboard/channels/${channel.channel_id}`)
  return { did: `connected sandbox channel ${channel.channel_id} and disconnected it`, events: ["channel.connected", "channel.disconnected"], detail: { channel_id: channel.channel_id } }
}

/** How each of the 12 event types is made to happen through the real pipeline. */
export const HAPPENINGS: Record<string, (t: Tools) => Promise<Happened>> = {
  "message.received": received,
  "message.sent": sent,
  "message.delivered": sent,
  "message.read": sent,
  "message.failed": failed,
  "message.echo": echo,
  "conversation.created": received,
  "conversation.ended": ended,
  "conversation.inactive": inactive,
  "channel.connected": channelEvents,
  "channel.disconnected": channelEvents,
  "template.status_changed": templateStatus
}
