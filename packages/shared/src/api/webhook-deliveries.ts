import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams, queryParams } from "../common.js"
import { Schema } from "effect"
import { DeliveryDetailQuery, DeliveryList, DeliveryListQuery, EventDelivery } from "../event-delivery.js"
import { NotFound, StatusLocked, ValidationFailed, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const DeliveryPath = Schema.Struct({ delivery_id: PathId("The delivery's id") })

const base = "/platform/v1/webhooks/deliveries"

/** `/platform/v1/webhooks/deliveries` (SPEC §4.6, DESIGN §5): manage:webhooks, key or cookie. */
export class DeliveriesGroup extends HttpApiGroup.make("deliveries")
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(DeliveryListQuery))
      .addSuccess(DeliveryList)
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List deliveries, newest first")
      .annotate(
        OpenApi.Description,
        "`mode=native` (default): normalized event deliveries; `mode=meta`: raw-forward deliveries. " +
          "`errors_only=true` is status=failed. Unknown filter values give an empty page; " +
          "`subscription_id` or `event_type` with `mode=meta` is 422 `filter_not_applicable` (raw-forward rows have neither)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:delivery_id`)
      .annotate(OpenApi.Summary, "Get a delivery")
      .setPath(DeliveryPath)
      .setUrlParams(queryParams(DeliveryDetailQuery))
      .addSuccess(EventDelivery)
      .addError(wire(NotFound))
      .annotate(OpenApi.Description, "`include=full_envelope` adds the delivered envelope or batch.")
  )
  .add(
    HttpApiEndpoint.post("redeliver", `${base}/:delivery_id/redeliver`)
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Deliver an event again")
      .setPath(DeliveryPath)
      .addSuccess(EventDelivery, { status: 201 })
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .annotate(
        OpenApi.Description,
        "A new delivery of a delivered or failed one: same event id and payload, a new row linked to the old. " +
          "409 status_locked while the original is pending or delivering."
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:webhooks")
  .annotate(CookieAllowed, true)
  .annotate(OpenApi.Title, "Webhook deliveries")
  .annotate(OpenApi.Description, "Every delivery attempt of normalized events (mode=native) and of raw forward (mode=meta), and redelivery.")
{}
