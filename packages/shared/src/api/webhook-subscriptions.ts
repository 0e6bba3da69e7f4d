import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams, queryParams } from "../common.js"
import { Schema } from "effect"
import { EventDelivery } from "../event-delivery.js"
import { EventNotConfigured, NotFound, ValidationFailed, wire } from "../errors.js"
import { ListQuery, Page } from "../pagination.js"
import {
  SubscriptionTestQuery,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WebhookSubscriptionCreate,
  WebhookSubscriptionPatch
} from "../webhook-subscription.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const SubscriptionPath = Schema.Struct({ sub_id: PathId("The subscription's id") })

const base = "/platform/v1/webhooks/subscriptions"

/** `/platform/v1/webhooks/subscriptions` (SPEC §4.5, DESIGN §5): manage:webhooks, key or cookie. */
export class SubscriptionsGroup extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.post("create", base)
      .setUrlParams(noQueryParams)
      .setPayload(WebhookSubscriptionCreate)
      .addSuccess(WebhookSubscriptionWithSecret, { status: 201 })
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "Create a subscription")
      .annotate(
        OpenApi.Description,
        "The target URL passes the SSRF guard (HTTPS, public addresses only) or the answer is 422. `secret` " +
          "(`whsec_...`) is in this response only. Reserved custom headers are dropped case-insensitively."
      )
  )
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(ListQuery))
      .addSuccess(Page(WebhookSubscription))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List subscriptions, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:sub_id`)
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Get a subscription")
      .setPath(SubscriptionPath)
      .addSuccess(WebhookSubscription)
      .addError(wire(NotFound))
  )
  .add(
    HttpApiEndpoint.patch("update", `${base}/:sub_id`)
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Update a subscription")
      .setPath(SubscriptionPath)
      .setPayload(WebhookSubscriptionPatch)
      .addSuccess(WebhookSubscription)
      .addError(wire(NotFound))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Description, "Same rules as create. `is_active: false` pauses without deleting.")
  )
  .add(
    HttpApiEndpoint.del("delete", `${base}/:sub_id`)
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Delete a subscription")
      .setPath(SubscriptionPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(wire(NotFound))
  )
  .add(
    HttpApiEndpoint.post("resume", `${base}/:sub_id/resume`)
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Resume a paused subscription")
      .setPath(SubscriptionPath)
      .addSuccess(WebhookSubscription)
      .addError(wire(NotFound))
      .annotate(
        OpenApi.Description,
        "Clears the pause and failure_count, and switches on a subscription switched off after a 410 Gone " +
          "(paused_reason receiver_gone_410); a no-op (still 200) otherwise."
      )
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", `${base}/:sub_id/rotate-secret`)
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Rotate a subscription's secret")
      .setPath(SubscriptionPath)
      .addSuccess(WebhookSubscriptionWithSecret)
      .addError(wire(NotFound))
      .annotate(
        OpenApi.Description,
        "Returns the new `secret` once. The previous secret keeps signing `webhook-signature` alongside for 24 hours."
      )
  )
  .add(
    HttpApiEndpoint.post("test", `${base}/:sub_id/test`)
      .annotate(OpenApi.Summary, "Send a signed test event")
      .setPath(SubscriptionPath)
      .setUrlParams(queryParams(SubscriptionTestQuery))
      .addSuccess(EventDelivery)
      .addError(wire(NotFound))
      .addError(wire(EventNotConfigured))
      .annotate(
        OpenApi.Description,
        "Enqueues a signed sample (`data._test: true`) through the normal pipeline and returns its delivery. " +
          "Default event_type: the first configured type, or message.sent for a catch-all."
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:webhooks")
  .annotate(CookieAllowed, true)
  .annotate(OpenApi.Title, "Webhook subscriptions")
  .annotate(OpenApi.Description, "Where normalized events are delivered: signed POSTs (X-Platform-Signature and Standard Webhooks headers) with retries, ordering per conversation, buffering and auto-pause.")
{}
