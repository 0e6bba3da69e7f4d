import type { APIClient } from "../../core/request.js"
import { Deliveries } from "./deliveries.js"
import { Subscriptions } from "./subscriptions.js"

/** Normalized-event webhooks: subscriptions and their deliveries. */
export class Webhooks {
  /** Webhook subscriptions. */
  readonly subscriptions: Subscriptions
  /** Delivery attempts and redelivery. */
  readonly deliveries: Deliveries
  constructor(client: APIClient) {
    this.subscriptions = new Subscriptions(client)
    this.deliveries = new Deliveries(client)
  }
}

export { Deliveries, DeliveryPage, type DeliveryRetrieveParams } from "./deliveries.js"
export { Subscriptions } from "./subscriptions.js"
