import type { CursorPage, PagePromise } from "../../core/pagination.js"
import type { RequestOptions } from "../../core/request.js"
import { APIResource, cursorPage, knownParams, listPages, seg } from "../../resource.js"
import type {
  EventDelivery,
  EventType,
  ListParams,
  SubscriptionCreateParams,
  SubscriptionUpdateParams,
  WebhookSubscription,
  WebhookSubscriptionWithSecret
} from "../../types.js"

const base = "/platform/v1/webhooks/subscriptions"
const LIST_PARAMS = ["limit", "after", "before"] as const satisfies ReadonlyArray<keyof ListParams>

/** Webhook subscriptions: where normalized events are delivered (`/platform/v1/webhooks/subscriptions`). */
export class Subscriptions extends APIResource {
  /** Creates a subscription; the response carries its signing `secret`, shown this once. */
  create(body: SubscriptionCreateParams, options?: RequestOptions): Promise<WebhookSubscriptionWithSecret> {
    return this._client.request({ method: "POST", path: base, body }, options)
  }

  /** Retrieves a subscription by id. */
  retrieve(id: number, options?: RequestOptions): Promise<WebhookSubscription> {
    return this._client.request({ method: "GET", path: `${base}/${seg(id)}` }, options)
  }

  /** Lists subscriptions, newest first: `await` for one page, `for await` for all. */
  list(params: ListParams = {}, options?: RequestOptions): PagePromise<WebhookSubscription, CursorPage<WebhookSubscription>> {
    return listPages(this._client, base, knownParams("webhooks.subscriptions.list", params, LIST_PARAMS), options, cursorPage)
  }

  /** Updates the given fields of a subscription (target_url is checked again). */
  update(id: number, body: SubscriptionUpdateParams, options?: RequestOptions): Promise<WebhookSubscription> {
    return this._client.request({ method: "PATCH", path: `${base}/${seg(id)}`, body }, options)
  }

  /** Deletes a subscription. */
  async delete(id: number, options?: RequestOptions): Promise<void> {
    await this._client.request({ method: "DELETE", path: `${base}/${seg(id)}` }, options)
  }

  /** Clears a pause and resets failure_count (idempotent). */
  resume(id: number, options?: RequestOptions): Promise<WebhookSubscription> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/resume`, idempotent: true }, options)
  }

  /** Issues a new signing secret, returned this once in `secret`. */
  rotateSecret(id: number, options?: RequestOptions): Promise<WebhookSubscriptionWithSecret> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/rotate-secret` }, options)
  }

  /** Sends a signed sample event (`data._test: true`) through the normal pipeline and returns its delivery. */
  test(id: number, params: { readonly event_type?: EventType } = {}, options?: RequestOptions): Promise<EventDelivery> {
    const query = knownParams("webhooks.subscriptions.test", params, ["event_type"])
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/test`, query }, options)
  }
}
