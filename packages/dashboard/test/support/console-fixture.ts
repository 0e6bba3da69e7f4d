import { hasEvent, type RealServer, type Receiver } from "@platform/test-support/real-server"
import type { Fixture } from "./console-pages.js"

/**
 * Gives the real server's account (a sandbox chat channel already connected) something on
 * every page: `subscriptions` webhook subscriptions to the receiver for `message.received`,
 * then one sandbox inbound message, so each subscription has a delivery in the log. Waits
 * until the receiver has them all, so the deliveries log is complete when this returns.
 */
export const prepareConsoleAccount = async (server: RealServer, receiver: Receiver, subscriptions = 5): Promise<Fixture> => {
  const ids: Array<number> = []
  for (let i = 1; i <= subscriptions; i++) {
    const created = await server.dashboard("POST", "/platform/v1/webhooks/subscriptions", {
      target_url: receiver.url,
      event_types: ["message.received"],
      description: `receiver ${i}`
    })
    if (created.status !== 201) throw new Error(`subscription answered ${created.status}: ${JSON.stringify(created.body)}`)
    ids.push(created.body.id as number)
  }
  const text = `console fixture ${Date.now()}`
  await server.inbound("15550001111", text)
  const ofThis = hasEvent("message.received", (e) => JSON.stringify(e).includes(text))
  for (let n = 1; n <= subscriptions; n++) {
    await receiver.next((r) => ofThis(r) && receiver.received.filter(ofThis).length >= n)
  }
  const deliveries = await server.dashboard("GET", "/platform/v1/webhooks/deliveries?limit=1")
  if (deliveries.status !== 200 || deliveries.body.data.length === 0) throw new Error(`deliveries answered ${deliveries.status}: ${JSON.stringify(deliveries.body)}`)
  const conversations = await server.dashboard("GET", "/platform/dashboard/conversations?limit=1")
  if (conversations.status !== 200 || conversations.body.data.length === 0) throw new Error(`conversations answered ${conversations.status}: ${JSON.stringify(conversations.body)}`)
  const { templateId, broadcastId } = await templateAndBroadcast(server)
  return {
    channelId: server.channelId,
    subscriptionId: ids[0]!,
    deliveryId: deliveries.body.data[0].id as number,
    conversationId: conversations.body.data[0].id as number,
    templateId,
    broadcastId
  }
}

const ok = (what: string, reply: { status: number; body: any }, status = 200) => {
  if (reply.status !== status) throw new Error(`${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`)
  return reply.body
}

/**
 * A template the sandbox approves (a status callback a moment after its submit) and a
 * draft broadcast of it, on the lite plan (broadcasts are not on the free one).
 */
const templateAndBroadcast = async (server: RealServer) => {
  ok("the plan change", await server.dashboard("POST", "/platform/dashboard/billing/plan", { plan: "lite" }))
  const name = `console_fixture_${Date.now()}`
  const template = ok("the template", await server.dashboard("POST", "/platform/v1/templates", {
    channel_id: server.channelId, name, language_code: "en_US", category: "utility", body_text: "Hello {{1}}, your order shipped", variables: ["Ana"]
  }))
  for (let tries = 0; ; tries++) {
    const read = ok("the template read", await server.dashboard("GET", `/platform/v1/templates/${template.id}`))
    if (read.meta_status === "approved") break
    if (tries > 300) throw new Error(`the template stayed ${read.meta_status}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const broadcast = ok("the broadcast", await server.dashboard("POST", "/platform/v1/broadcasts", {
    name: "Console fixture", channel_id: server.channelId, template_name: name, language_code: "en_US"
  }), 201)
  return { templateId: template.id as number, broadcastId: broadcast.id as number }
}
