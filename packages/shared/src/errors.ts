import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { UpstreamErrorEnvelope } from "./events.js"
import { EventType } from "./events.js"
import { Scope } from "./scopes.js"
import { optional } from "./common.js"
import { ValidationFailed } from "./validation-failed.js"

export * from "./validation-failed.js"

/** Coded errors: code → HTTP status (DESIGN §5 "Error bodies"). */
export const ErrorCodes = {
  bad_request: 400,
  chat_only: 400,
  unauthorized: 401,
  missing_scope: 403,
  plan_forbidden: 403,
  not_found: 404,
  status_locked: 409,
  idempotency_key_in_flight: 409,
  no_recipients: 422,
  legacy_row_supply_components: 422,
  event_not_configured: 422,
  channel_unusable: 422,
  template_unusable: 422,
  idempotency_key_reused: 422,
  not_implemented: 501,
  upstream_error: 502,
  outcome_pending: 503,
  database_unavailable: 503
} as const
export type ErrorCode = keyof typeof ErrorCodes

const status = (status: number) => HttpApiSchema.annotations<any>({ status })
const coded = (code: ErrorCode) => status(ErrorCodes[code])

/** `message` field with a default, so `new NotFound()` reads well and can be overridden. */
const message = (text: string) =>
  Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => text))

// Coded errors: wire body {"detail": {"code", "message", ...extra}}

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: message("bad request") },
  coded("bad_request")
) {
  static readonly code = "bad_request"
}

export class ChatOnly extends Schema.TaggedError<ChatOnly>()(
  "ChatOnly",
  { message: message("this operation is supported only on chat-app channels") },
  coded("chat_only")
) {
  static readonly code = "chat_only"
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: message("API key missing, invalid, inactive or expired: send a key of this account in the X-API-Key header") },
  coded("unauthorized")
) {
  static readonly code = "unauthorized"
}

export class MissingScope extends Schema.TaggedError<MissingScope>()(
  "MissingScope",
  { message: message("the API key lacks the scope this endpoint requires"), required_scope: Scope },
  coded("missing_scope")
) {
  static readonly code = "missing_scope"
}

export class PlanForbidden extends Schema.TaggedError<PlanForbidden>()(
  "PlanForbidden",
  { message: message("not available on the current plan") },
  coded("plan_forbidden")
) {
  static readonly code = "plan_forbidden"
}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: message("not found") },
  coded("not_found")
) {
  static readonly code = "not_found"
}

export class StatusLocked extends Schema.TaggedError<StatusLocked>()(
  "StatusLocked",
  { message: message("the resource's status does not allow this operation"), status: Schema.String },
  coded("status_locked")
) {
  static readonly code = "status_locked"
}

export class IdempotencyKeyInFlight extends Schema.TaggedError<IdempotencyKeyInFlight>()(
  "IdempotencyKeyInFlight",
  { message: message("a request with this Idempotency-Key is still in progress") },
  coded("idempotency_key_in_flight")
) {
  static readonly code = "idempotency_key_in_flight"
}

/**
 * 503 of POST /messages: the upstream accepted the message (it has gone out) but the
 * database failed before it was recorded; the server holds the outcome and records it
 * when the database returns. Do not send it again without the same Idempotency-Key: a
 * retry with the key gets the recorded reply once it is written.
 */
export class SendOutcomePending extends Schema.TaggedError<SendOutcomePending>()(
  "SendOutcomePending",
  {
    message: message("the upstream accepted the message; it will be recorded when the database returns"),
    meta_message_id: Schema.NullOr(Schema.String)
  },
  coded("outcome_pending")
) {
  static readonly code = "outcome_pending"
}

/** Seconds a 503 `database_unavailable` asks the client to wait (its `Retry-After`). */
export const DATABASE_RETRY_AFTER_SECONDS = 2

/**
 * 503 of any route: the server could not reach its database (a restart, a failover, a
 * network partition). Nothing was done; retry after `Retry-After` seconds.
 */
export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()(
  "DatabaseUnavailable",
  {
    message: message(`The database is unreachable; retry after ${DATABASE_RETRY_AFTER_SECONDS} seconds`),
    request_id: Schema.String
  },
  coded("database_unavailable")
) {
  static readonly code = "database_unavailable"
}

export class NoRecipients extends Schema.TaggedError<NoRecipients>()(
  "NoRecipients",
  { message: message("the broadcast has no recipients") },
  coded("no_recipients")
) {
  static readonly code = "no_recipients"
}

export class LegacyRowSupplyComponents extends Schema.TaggedError<LegacyRowSupplyComponents>()(
  "LegacyRowSupplyComponents",
  { message: message("this template has no stored components; supply components in the patch") },
  coded("legacy_row_supply_components")
) {
  static readonly code = "legacy_row_supply_components"
}

export class EventNotConfigured extends Schema.TaggedError<EventNotConfigured>()(
  "EventNotConfigured",
  {
    message: message("the subscription is not configured for this event type"),
    configured_event_types: Schema.Array(EventType)
  },
  coded("event_not_configured")
) {
  static readonly code = "event_not_configured"
}

export class ChannelUnusable extends Schema.TaggedError<ChannelUnusable>()(
  "ChannelUnusable",
  { message: message("the channel is missing, inactive or without credentials") },
  coded("channel_unusable")
) {
  static readonly code = "channel_unusable"
}

/**
 * A broadcast's template cannot be sent: the channel does not have it (`not_found`), it is
 * not approved (`not_approved`, with its `meta_status`), or recipients would go without the
 * parameters it needs (`parameters_missing`: how many, the first of them, and what is missing).
 */
export class TemplateUnusable extends Schema.TaggedError<TemplateUnusable>()(
  "TemplateUnusable",
  {
    message: message("the broadcast's template cannot be sent"),
    reason: Schema.Literal("not_found", "not_approved", "parameters_missing"),
    template_name: Schema.String,
    language_code: Schema.String,
    meta_status: optional(Schema.NullOr(Schema.String)),
    recipients_missing: optional(Schema.Int),
    recipients: optional(Schema.Array(Schema.String)),
    missing: optional(Schema.Array(Schema.String))
  },
  coded("template_unusable")
) {
  static readonly code = "template_unusable"
}

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  { message: message("this Idempotency-Key was already used with a different request body") },
  coded("idempotency_key_reused")
) {
  static readonly code = "idempotency_key_reused"
}

export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  { message: message("not implemented") },
  coded("not_implemented")
) {
  static readonly code = "not_implemented"
}

/**
 * 502 `upstream_error` of the routes other than send: `message` says what failed
 * (never a token); where the upstream answered, `error` (its classification, as in
 * the send 502), `meta_code`, `meta_subcode`, `meta_title` and `fbtrace_id` say why,
 * and `hint` what to do, for the common codes.
 */
export class UpstreamFailure extends Schema.TaggedError<UpstreamFailure>()(
  "UpstreamFailure",
  {
    message: message("the upstream failed"),
    error: optional(Schema.String),
    meta_code: optional(Schema.NullOr(Schema.Number)),
    meta_subcode: optional(Schema.NullOr(Schema.Number)),
    meta_title: optional(Schema.NullOr(Schema.String)),
    fbtrace_id: optional(Schema.NullOr(Schema.String)),
    hint: optional(Schema.String)
  },
  coded("upstream_error")
) {
  static readonly code = "upstream_error"
}

// Errors whose wire body is fixed by SPEC §7 (the fields minus `_tag`): the 422 of
// validation-failed.ts, the 429s and the send's 502.

export const RATE_LIMIT_DETAIL = "rate limit exceeded" as const
export const TEMPLATE_QUOTA_PREFIX = "template quota exceeded: " as const

/** 429 `{"detail":"rate limit exceeded"}`: retry with backoff. */
export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  {
    detail: Schema.Literal(RATE_LIMIT_DETAIL).pipe(
      Schema.propertySignature,
      Schema.withConstructorDefault(() => RATE_LIMIT_DETAIL)
    )
  },
  status(429)
) {}

/** 429 `{"detail":"template quota exceeded: ..."}`: do not retry; upgrade or wait for the reset. */
export class TemplateQuotaExceeded extends Schema.TaggedError<TemplateQuotaExceeded>()(
  "TemplateQuotaExceeded",
  {
    detail: Schema.TemplateLiteral(TEMPLATE_QUOTA_PREFIX, Schema.String).pipe(
      Schema.propertySignature,
      Schema.withConstructorDefault(
        () => `${TEMPLATE_QUOTA_PREFIX}the plan's monthly template messages are used up` as const
      )
    )
  },
  status(429)
) {
  static withReason(reason: string): TemplateQuotaExceeded {
    return new TemplateQuotaExceeded({ detail: `${TEMPLATE_QUOTA_PREFIX}${reason}` })
  }
}

/** 502 of POST /messages: the upstream error envelope of SPEC §7. */
export class SendUpstreamError extends Schema.TaggedError<SendUpstreamError>()(
  "SendUpstreamError",
  UpstreamErrorEnvelope.fields,
  status(502)
) {}

// Wire schemas

type ErrorClass = Schema.Schema<any, any, never> & {
  readonly _tag: string
  readonly fields: Schema.Struct.Fields
}

type WithoutTag<E> = { readonly [K in keyof E as K extends "_tag" ? never : K]: E[K] }

/** JSON body of an error on the wire: never carries `_tag`. */
export type WireBody<C extends ErrorClass> = C extends { readonly code: infer K extends string }
  ? { readonly detail: { readonly code: K } & WithoutTag<Schema.Schema.Encoded<C>> }
  : WithoutTag<Schema.Schema.Encoded<C>>

export interface Wire<C extends ErrorClass> extends Schema.Schema<Schema.Schema.Type<C>, WireBody<C>> {}

const wires = new WeakMap<ErrorClass, Schema.Schema.Any>()

/**
 * The HttpApi-ready schema of an error class: `HttpApiEndpoint.addError(wire(NotFound))`.
 * Encodes an instance to its wire body (coded errors as `{"detail": {"code", "message", ...}}`,
 * the SPEC §7 bodies verbatim) with the class's status, and decodes the body back.
 */
export const wire = <C extends ErrorClass>(cls: C): Wire<C> => {
  const cached = wires.get(cls)
  if (cached !== undefined) return cached as unknown as Wire<C>
  const { _tag: _, ...fields } = cls.fields
  const code: string | undefined = (cls as { readonly code?: string }).code
  const body =
    code === undefined
      ? Schema.Struct(fields)
      : Schema.Struct({ detail: Schema.Struct({ code: Schema.Literal(code), ...fields }) })
  const schema = Schema.transform(body.annotations({ identifier: `${cls._tag}Body` }), cls, {
    strict: false,
    decode: (w: any) => {
      if (code === undefined) return { ...w, _tag: cls._tag }
      const { code: _code, ...rest } = w.detail
      return { ...rest, _tag: cls._tag }
    },
    encode: ({ _tag: _t, ...rest }: any) => (code === undefined ? rest : { detail: { code, ...rest } })
  }).annotations(HttpApiSchema.annotations({ status: HttpApiSchema.getStatusError(cls) }))
  wires.set(cls, schema)
  return schema as unknown as Wire<C>
}

/** Every error class, for tables and exhaustive tests. */
export const ErrorClasses = [
  BadRequest,
  ChatOnly,
  Unauthorized,
  MissingScope,
  PlanForbidden,
  NotFound,
  StatusLocked,
  IdempotencyKeyInFlight,
  NoRecipients,
  LegacyRowSupplyComponents,
  EventNotConfigured,
  ChannelUnusable,
  TemplateUnusable,
  IdempotencyKeyReused,
  NotImplemented,
  UpstreamFailure,
  ValidationFailed,
  RateLimited,
  TemplateQuotaExceeded,
  SendUpstreamError,
  SendOutcomePending,
  DatabaseUnavailable
] as const

export type PlatformError = InstanceType<(typeof ErrorClasses)[number]>
