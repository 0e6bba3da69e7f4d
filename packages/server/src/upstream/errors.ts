import { upstreamHint } from "@platform/shared"
import { Schema } from "effect"

export const UpstreamErrorKind = Schema.Literal(
  "throughput_limited",
  "pair_rate_limited",
  "reengagement_required",
  "template_missing",
  "template_param_mismatch",
  "auth",
  "invalid_parameter",
  "permission_denied",
  "rate_limited",
  "spam_rate_limited",
  "undeliverable",
  "media_error",
  "server",
  "network",
  "unexpected_response",
  "unknown"
)
export type UpstreamErrorKind = typeof UpstreamErrorKind.Type

/**
 * An error answered by the Graph API (or a failure to reach it), classified by
 * `error.code` because Meta reuses HTTP statuses: 130429 arrives as 400 or 429.
 * Every string field has been scrubbed of tokens and secrets before construction.
 */
export class UpstreamError extends Schema.TaggedError<UpstreamError>()("UpstreamError", {
  kind: UpstreamErrorKind,
  operation: Schema.String,
  meta_code: Schema.NullOr(Schema.Number),
  meta_subcode: Schema.NullOr(Schema.Number),
  meta_title: Schema.NullOr(Schema.String),
  message: Schema.String,
  details: Schema.NullOr(Schema.String),
  fbtrace_id: Schema.NullOr(Schema.String),
  http_status: Schema.NullOr(Schema.Number)
}) {
  /** Worth retrying for an idempotent call: server side trouble or no answer. */
  get transient(): boolean {
    return this.kind === "network" || this.kind === "server" || (this.http_status !== null && this.http_status >= 500)
  }
}

/** No answer within the call's deadline (10 s, 60 s for uploads). */
export class UpstreamTimeout extends Schema.TaggedError<UpstreamTimeout>()("UpstreamTimeout", {
  operation: Schema.String,
  timeout_ms: Schema.Number,
  message: Schema.String
}) {}

/** The channel's local send queue is full: the call was refused before reaching Meta. */
export class UpstreamThrottled extends Schema.TaggedError<UpstreamThrottled>()("UpstreamThrottled", {
  channel_id: Schema.Number,
  rate_per_second: Schema.Number,
  message: Schema.String
}) {}

/**
 * Refused before any call: `chat_only` when a social channel is asked for something
 * only chat channels carry (SPEC §7 400), `invalid_request` for a body the upstream
 * could not accept (missing filename for a linked document, missing ids).
 */
export class UpstreamRequestInvalid extends Schema.TaggedError<UpstreamRequestInvalid>()("UpstreamRequestInvalid", {
  code: Schema.Literal("chat_only", "invalid_request"),
  message: Schema.String
}) {}

/** A Graph API call's errors that become a 502 (the wire `UpstreamFailure` of @platform/shared, or a send's 502 body). */
export type UpstreamCallError = UpstreamError | UpstreamTimeout | UpstreamThrottled

/** The 502 `error` of a call the channel's own throttle refused: nothing reached the upstream. */
export const UPSTREAM_THROTTLED = "upstream_throttled"

/** SPEC §7 502 body of the send route. */
export interface SendErrorBody {
  readonly error: string
  readonly meta_code: number | null
  readonly meta_subcode: number | null
  readonly meta_title: string | null
  readonly message: string
  readonly fbtrace_id: string | null
  /** What to do, for the common Meta codes (added to SPEC's fields; absent for the others). */
  readonly hint?: string
}

/**
 * The 502 body for an upstream failure. `error` is the classification (for example
 * `pair_rate_limited`), `upstream_timeout` or `upstream_throttled`, so a client can
 * branch without parsing Meta's text.
 */
export const toSendErrorBody = (e: UpstreamCallError): SendErrorBody => {
  switch (e._tag) {
    case "UpstreamError": {
      const hint = upstreamHint(e.meta_code)
      return {
        error: e.kind,
        meta_code: e.meta_code,
        meta_subcode: e.meta_subcode,
        meta_title: e.meta_title,
        message: e.message,
        fbtrace_id: e.fbtrace_id,
        ...(hint === undefined ? {} : { hint })
      }
    }
    case "UpstreamTimeout":
      return { error: "upstream_timeout", meta_code: null, meta_subcode: null, meta_title: null, message: e.message, fbtrace_id: null }
    case "UpstreamThrottled":
      return { error: UPSTREAM_THROTTLED, meta_code: null, meta_subcode: null, meta_title: null, message: e.message, fbtrace_id: null }
  }
}

interface CodeInfo {
  readonly kind: UpstreamErrorKind
  readonly title: string
}

/** Meta's documented codes (WhatsApp Cloud API error codes, Graph API errors). */
export const META_ERROR_CODES: Readonly<Record<number, CodeInfo>> = {
  0: { kind: "auth", title: "AuthException" },
  1: { kind: "server", title: "API Unknown" },
  2: { kind: "server", title: "API Service" },
  3: { kind: "permission_denied", title: "API Method" },
  4: { kind: "rate_limited", title: "API Too Many Calls" },
  10: { kind: "permission_denied", title: "Permission Denied" },
  17: { kind: "rate_limited", title: "API User Too Many Calls" },
  100: { kind: "invalid_parameter", title: "Invalid parameter" },
  190: { kind: "auth", title: "Access token has expired" },
  200: { kind: "permission_denied", title: "API Permission" },
  368: { kind: "permission_denied", title: "Temporarily blocked for policies violations" },
  613: { kind: "rate_limited", title: "Calls to this api have exceeded the rate limit" },
  80007: { kind: "throughput_limited", title: "Rate limit issues" },
  130429: { kind: "throughput_limited", title: "Rate limit hit" },
  131000: { kind: "server", title: "Something went wrong" },
  131005: { kind: "permission_denied", title: "Access denied" },
  131008: { kind: "invalid_parameter", title: "Required parameter is missing" },
  131009: { kind: "invalid_parameter", title: "Parameter value is not valid" },
  131016: { kind: "server", title: "Service unavailable" },
  131021: { kind: "invalid_parameter", title: "Recipient cannot be sender" },
  131026: { kind: "undeliverable", title: "Message undeliverable" },
  131031: { kind: "permission_denied", title: "Account has been locked" },
  131047: { kind: "reengagement_required", title: "Re-engagement message" },
  131048: { kind: "spam_rate_limited", title: "Spam rate limit hit" },
  131051: { kind: "invalid_parameter", title: "Unsupported message type" },
  131052: { kind: "media_error", title: "Media download error" },
  131053: { kind: "media_error", title: "Media upload error" },
  131056: { kind: "pair_rate_limited", title: "(Business Account, Consumer Account) pair rate limit hit" },
  132000: { kind: "template_param_mismatch", title: "Number of parameters does not match the expected number of params" },
  132001: { kind: "template_missing", title: "Template does not exist" },
  132005: { kind: "template_param_mismatch", title: "Translated text too long" },
  132007: { kind: "template_param_mismatch", title: "Template Format Character Policy Violated" },
  132012: { kind: "template_param_mismatch", title: "Parameter format does not match format in the created template" },
  132015: { kind: "template_missing", title: "Template is Paused" },
  132016: { kind: "template_missing", title: "Template is Disabled" },
  133010: { kind: "permission_denied", title: "Phone number not registered" }
}

/** The classification of a Meta error code; HTTP status only breaks ties for unknown codes. */
export const classifyMetaCode = (code: number | null, httpStatus: number | null): UpstreamErrorKind => {
  if (code !== null) {
    const known = META_ERROR_CODES[code]
    if (known) return known.kind
    if (code >= 200 && code <= 299) return "permission_denied"
  }
  if (httpStatus !== null && httpStatus >= 500) return "server"
  return "unknown"
}

const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(access_token|client_secret|code|input_token|appsecret_proof)=([^&\s"']+)/gi, "$1=[redacted]"],
  [/\b(Bearer|OAuth)\s+[A-Za-z0-9._~+/=-]{16,}/g, "$1 [redacted]"],
  [/\bEAA[A-Za-z0-9]{16,}/g, "[redacted]"]
]

/**
 * Removes the given secrets and anything shaped like a Graph token from text
 * that is about to be put in an error, a log line or a response.
 */
export const redactSecrets = (text: string, secrets: ReadonlyArray<string> = []): string => {
  let out = text
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join("[redacted]")
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement)
  return out
}

const MetaErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    message: Schema.optional(Schema.String),
    type: Schema.optional(Schema.String),
    code: Schema.optional(Schema.Number),
    error_subcode: Schema.optional(Schema.Number),
    error_user_title: Schema.optional(Schema.String),
    error_user_msg: Schema.optional(Schema.String),
    error_data: Schema.optional(Schema.Unknown),
    fbtrace_id: Schema.optional(Schema.String)
  })
})
const decodeEnvelope = Schema.decodeUnknownOption(MetaErrorEnvelope)

const detailsOf = (errorData: unknown): string | null => {
  if (typeof errorData === "string") return errorData
  if (typeof errorData === "object" && errorData !== null && "details" in errorData) {
    const d = (errorData as { details?: unknown }).details
    return typeof d === "string" ? d : null
  }
  return null
}

/**
 * Turns any error answer of the Graph API into an `UpstreamError`: Meta's envelope
 * `{error: {message, type, code, error_subcode, error_user_title, error_data, fbtrace_id}}`
 * when present, the HTTP status otherwise.
 */
export const fromGraphResponse = (options: {
  readonly operation: string
  readonly status: number | null
  readonly body: unknown
  readonly traceHeader?: string | null | undefined
  readonly secrets?: ReadonlyArray<string> | undefined
}): UpstreamError => {
  const secrets = options.secrets ?? []
  const scrub = (s: string) => redactSecrets(s, secrets)
  const envelope = decodeEnvelope(options.body)
  if (envelope._tag === "Some") {
    const e = envelope.value.error
    const code = e.code ?? null
    const details = detailsOf(e.error_data)
    return new UpstreamError({
      kind: classifyMetaCode(code, options.status),
      operation: options.operation,
      meta_code: code,
      meta_subcode: e.error_subcode ?? null,
      meta_title: scrub(e.error_user_title ?? (code !== null ? META_ERROR_CODES[code]?.title : undefined) ?? "") || null,
      message: scrub(e.message ?? e.error_user_msg ?? `Upstream answered ${options.status ?? "an error"}`),
      details: details === null ? null : scrub(details),
      fbtrace_id: e.fbtrace_id ?? options.traceHeader ?? null,
      http_status: options.status
    })
  }
  const text = typeof options.body === "string" ? options.body.slice(0, 200) : ""
  return new UpstreamError({
    kind: classifyMetaCode(null, options.status),
    operation: options.operation,
    meta_code: null,
    meta_subcode: null,
    meta_title: null,
    message: scrub(`Upstream answered HTTP ${options.status ?? "?"} without an error envelope${text ? `: ${text}` : ""}`),
    details: null,
    fbtrace_id: options.traceHeader ?? null,
    http_status: options.status
  })
}
