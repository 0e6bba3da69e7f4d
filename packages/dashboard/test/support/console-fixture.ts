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
  return { channelId: server.channelId, subscriptionId: ids[0]!, deliveryId: deliveries.body.data[0].id as number }
}
