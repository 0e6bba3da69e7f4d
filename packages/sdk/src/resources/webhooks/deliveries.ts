import { CursorPage, type PageBody, type PageLoader, type PagePromise } from "../../core/pagination.js"
import type { RequestOptions } from "../../core/request.js"
import { APIResource, knownParams, listPages, seg } from "../../resource.js"
import type { DeliveryListParams, EventDelivery, RawForwardDelivery } from "../../types.js"

const base = "/platform/v1/webhooks/deliveries"
const LIST_PARAMS = [
  "limit", "after", "before", "mode", "subscription_id", "channel_id", "status", "event_type", "errors_only"
] as const satisfies ReadonlyArray<keyof DeliveryListParams>

/** A page of deliveries, with the `mode` it lists. */
export class DeliveryPage<T> extends CursorPage<T> {
  /** `native` (normalized deliveries) or `meta` (raw-forward deliveries). */
  readonly mode: "native" | "meta"
  constructor(body: PageBody<T> & { readonly mode: "native" | "meta" }, load: PageLoader<T, CursorPage<T>>) {
    super(body, load)
    this.mode = body.mode
  }
}

/** Options of `deliveries.retrieve`. */
export interface DeliveryRetrieveParams {
  /** Adds `envelope`: the payload exactly as delivered (an envelope, or a batch `{events}`). */
  readonly include?: "full_envelope"
}

/** Webhook delivery attempts and redelivery (`/platform/v1/webhooks/deliveries`). */
export class Deliveries extends APIResource {
  /** Lists normalized deliveries (default) or, with `mode: "meta"`, raw-forward deliveries, newest first. */
  list(params: DeliveryListParams & { readonly mode: "meta" }, options?: RequestOptions): PagePromise<RawForwardDelivery, DeliveryPage<RawForwardDelivery>>
  list(params?: DeliveryListParams & { readonly mode?: "native" }, options?: RequestOptions): PagePromise<EventDelivery, DeliveryPage<EventDelivery>>
  list(params: DeliveryListParams = {}, options?: RequestOptions): PagePromise<unknown, DeliveryPage<unknown>> {
    return listPages(
      this._client,
      base,
      knownParams("webhooks.deliveries.list", params, LIST_PARAMS),
      options,
      (body: PageBody<unknown> & { mode: "native" | "meta" }, load) => new DeliveryPage(body, load)
    )
  }

  /** Retrieves a normalized delivery; `{ include: "full_envelope" }` adds the delivered payload. */
  retrieve(id: number, params: DeliveryRetrieveParams = {}, options?: RequestOptions): Promise<EventDelivery> {
    const query = knownParams("webhooks.deliveries.retrieve", params, ["include"])
    return this._client.request({ method: "GET", path: `${base}/${seg(id)}`, query }, options)
  }

  /** Delivers a failed or delivered event again (same event id, a new delivery row) and returns the new delivery. */
  redeliver(id: number, options?: RequestOptions): Promise<EventDelivery> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/redeliver` }, options)
  }
}
