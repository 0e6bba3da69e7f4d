import { Layer } from "effect"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { Conversations } from "./conversations.js"
import { Deliveries } from "./deliveries.js"
import { EventStream } from "./event-stream.js"
import { Subscriptions } from "./subscriptions.js"

/** Subscriptions, deliveries, the conversation status change and the event stream; Secrets and Events come from DomainLive. */
export const DeliveryDomainLive = Layer.mergeAll(
  Subscriptions.Default,
  Deliveries.Default,
  Conversations.Default,
  EventStream.Default
).pipe(Layer.provideMerge(DeliveryWakeup.Default))
