import { Layer } from "effect"
import { DeliveryWakeup } from "./delivery/wakeup.js"
import { Conversations } from "./conversations/conversations.js"
import { Deliveries } from "./webhooks/deliveries.js"
import { EventStream } from "./events/event-stream.js"
import { Subscriptions } from "./webhooks/subscriptions.js"

/** Subscriptions, deliveries, the conversation status change and the event stream; Secrets and Events come from DomainLive. */
export const DeliveryDomainLive = Layer.mergeAll(
  Subscriptions.Default,
  Deliveries.Default,
  Conversations.Default,
  EventStream.Default
).pipe(Layer.provideMerge(DeliveryWakeup.Default))
