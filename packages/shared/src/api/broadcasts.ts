import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import {
  Broadcast,
  BroadcastCreate,
  BroadcastListQuery,
  BroadcastRecipientsLoad,
  BroadcastRecipientsLoadResult,
  BroadcastRecipientsPage,
  BroadcastRecipientsQuery,
  BroadcastSchedule
} from "../broadcast.js"
import { noQueryParams, queryParams } from "../common.js"
import {
  ChannelUnusable,
  ChatOnly,
  IdempotencyKeyInFlight,
  IdempotencyKeyReused,
  NoRecipients,
  TemplateUnusable,
  NotFound,
  PlanForbidden,
  StatusLocked,
  ValidationFailed,
  wire
} from "../errors.js"
import { Page } from "../pagination.js"
import { IdempotencyHeaders } from "./messages.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const BroadcastPath = Schema.Struct({ broadcast_id: PathId("The broadcast's id") })

const base = "/platform/v1/broadcasts"

/**
 * `/platform/v1/broadcasts` (SPEC §2.7, §3.3, §4.7; DESIGN §5): template campaigns on
 * chat channels; send:broadcasts, key or cookie. Every route is 403 plan_forbidden on
 * the free plan.
 */
export class BroadcastsGroup extends HttpApiGroup.make("broadcasts")
  .add(
    HttpApiEndpoint.post("create", base)
      .setUrlParams(noQueryParams)
      .setPayload(BroadcastCreate)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Broadcast, { status: 201 })
      .addError(wire(ChatOnly))
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .addError(wire(ChannelUnusable))
      .addError(wire(TemplateUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(IdempotencyKeyReused))
      .addError(wire(IdempotencyKeyInFlight))
      .annotate(OpenApi.Summary, "Create a draft broadcast")
      .annotate(
        OpenApi.Description,
        "A draft of one template on one chat channel (a social channel is 400 chat_only). `components` are the " +
          "default runtime components of every recipient. The template must be one the channel has, approved " +
          "(else 422 template_unusable, reason not_found or not_approved; run POST /templates/sync for one made in " +
          "WhatsApp Manager), and given components must fill it (else 422 at the component). With `Idempotency-Key` the first response is kept 24 h and " +
          "replayed with `Idempotent-Replayed: true`."
      )
  )
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(BroadcastListQuery))
      .addSuccess(Page(Broadcast))
      .addError(wire(PlanForbidden))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List broadcasts, newest first")
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:broadcast_id`)
      .setUrlParams(noQueryParams)
      .setPath(BroadcastPath)
      .addSuccess(Broadcast)
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Get a broadcast")
  )
  .add(
    HttpApiEndpoint.post("addRecipients", `${base}/:broadcast_id/recipients`)
      .setUrlParams(noQueryParams)
      .setPath(BroadcastPath)
      .setPayload(BroadcastRecipientsLoad)
      .addSuccess(BroadcastRecipientsLoadResult)
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "Load recipients (1 to 1000 a call)")
      .annotate(
        OpenApi.Description,
        "Deduplicated by `to`, within the call and against the recipients already loaded (`skipped` counts both). " +
          "Only a draft or scheduled broadcast takes recipients (else 409 status_locked). Beyond the plan's " +
          "recipients per broadcast the whole call is 422 at body.recipients and nothing is added."
      )
  )
  .add(
    HttpApiEndpoint.get("listRecipients", `${base}/:broadcast_id/recipients`)
      .setPath(BroadcastPath)
      .setUrlParams(queryParams(BroadcastRecipientsQuery))
      .addSuccess(BroadcastRecipientsPage)
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List recipients with their state, and counts per state")
      .annotate(
        OpenApi.Description,
        "State: pending, sent, delivered, read (from the sent message's status callbacks), responded (the " +
          "recipient wrote to the channel after the send) or failed. `counts` cover the whole broadcast."
      )
  )
  .add(
    HttpApiEndpoint.post("schedule", `${base}/:broadcast_id/schedule`)
      .setUrlParams(noQueryParams)
      .setPath(BroadcastPath)
      .setPayload(BroadcastSchedule)
      .addSuccess(Broadcast)
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .addError(wire(NoRecipients))
      .addError(wire(TemplateUnusable))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "Schedule a draft")
      .annotate(
        OpenApi.Description,
        "`scheduled_at` must be in the future (60 s of clock skew tolerated; clearly past is 422). Only a draft can " +
          "be scheduled (else 409 status_locked); zero recipients is 422 no_recipients. The template is checked " +
          "again (422 template_unusable: not_found, not_approved, or parameters_missing for recipients whose " +
          "components, or the draft's, do not fill it). The send cycle starts it on its first tick at or after scheduled_at."
      )
  )
  .add(
    HttpApiEndpoint.post("send", `${base}/:broadcast_id/send`)
      .setUrlParams(noQueryParams)
      .setPath(BroadcastPath)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(Broadcast, { status: 202 })
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .addError(wire(NoRecipients))
      .addError(wire(TemplateUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(IdempotencyKeyReused))
      .addError(wire(IdempotencyKeyInFlight))
      .annotate(OpenApi.Summary, "Send a draft or scheduled broadcast now")
      .annotate(
        OpenApi.Description,
        "202 with status sending; the 30-second send cycle sends to each recipient on its next tick. From any " +
          "other state 409 status_locked; zero recipients 422 no_recipients; a template the channel does not have, " +
          "not approved, or not filled for every recipient 422 template_unusable (as at schedule)."
      )
  )
  .add(
    HttpApiEndpoint.post("cancel", `${base}/:broadcast_id/cancel`)
      .setUrlParams(noQueryParams)
      .setPath(BroadcastPath)
      .addSuccess(Broadcast)
      .addError(wire(PlanForbidden))
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .annotate(OpenApi.Summary, "Cancel a scheduled or sending broadcast back to draft")
      .annotate(
        OpenApi.Description,
        "Recipients already sent keep their state; the others stay pending. From draft, completed or failed " +
          "409 status_locked."
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "send:broadcasts")
  .annotate(CookieAllowed, true)
  .annotate(OpenApi.Title, "Broadcasts")
  .annotate(OpenApi.Description, "Template campaigns on chat channels: a draft, its recipients, a schedule or an immediate send.")
{}
