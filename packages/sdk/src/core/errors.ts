import type { ValidationIssue } from "@platform/shared"

/** Base class of every error the SDK throws; catch it to handle them all. */
export class PlatformError extends Error {
  override readonly name: string = "PlatformError"
}

/** Options shared by the HTTP error classes. */
export interface APIErrorInit {
  readonly status: number
  readonly body: unknown
  readonly headers: Headers
  readonly message?: string
}

const detailOf = (body: unknown): unknown =>
  body !== null && typeof body === "object" && "detail" in body ? (body as { detail: unknown }).detail : undefined

const codedDetail = (body: unknown): Record<string, unknown> | undefined => {
  const detail = detailOf(body)
  return detail !== null && typeof detail === "object" && !Array.isArray(detail) ? (detail as Record<string, unknown>) : undefined
}

const describe = (status: number, body: unknown): string => {
  const coded = codedDetail(body)
  if (coded && typeof coded.message === "string") return `${status} ${coded.code ?? "error"}: ${coded.message}`
  const detail = detailOf(body)
  if (typeof detail === "string") return `${status} ${detail}`
  if (Array.isArray(detail)) {
    const items = detail as ReadonlyArray<Partial<ValidationIssue>>
    const first = items
      .slice(0, 3)
      .map((i) => `${(i.loc ?? []).join(".")}: ${i.msg ?? "invalid"}`)
      .join("; ")
    return `${status} validation failed: ${first}${items.length > 3 ? ` (and ${items.length - 3} more)` : ""}`
  }
  if (body !== null && typeof body === "object" && typeof (body as { message?: unknown }).message === "string") {
    return `${status} ${(body as { message: string }).message}`
  }
  if (typeof body === "string" && body.length > 0) return `${status} ${body.slice(0, 200)}`
  return `${status} status code (no body)`
}

/** The `hint` of a 502 (what to do about a common Meta error code), from either 502 body shape. */
const hintOf = (body: unknown): string | null => {
  const fields = codedDetail(body) ?? (body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {})
  return typeof fields.hint === "string" && fields.hint !== "" ? fields.hint : null
}

const codeOf = (status: number, body: unknown): string | undefined => {
  const code = codedDetail(body)?.code
  if (typeof code === "string") return code
  if (status === 422 && Array.isArray(detailOf(body))) return "validation_error"
  if (status === 429) return isTemplateQuota(body) ? "template_quota_exceeded" : "rate_limit_exceeded"
  if (status === 502) return "upstream_error"
  return undefined
}

/** An HTTP error answered by the API, carrying its status, code, request id, headers and parsed body. */
export class APIError extends PlatformError {
  override readonly name: string = "APIError"
  /** The HTTP status code. */
  readonly status: number
  /** The machine-readable error code (`not_found`, `status_locked`, ...) when the body carries one. */
  readonly code: string | undefined
  /** The `X-Request-Id` of the response, to quote when asking for support. */
  readonly requestId: string | undefined
  /** The response headers. */
  readonly headers: Headers
  /** The parsed response body. */
  readonly body: unknown

  constructor(init: APIErrorInit) {
    super(init.message ?? describe(init.status, init.body))
    this.status = init.status
    this.body = init.body
    this.headers = init.headers
    this.requestId = init.headers.get("x-request-id") ?? undefined
    this.code = codeOf(init.status, init.body)
  }

  /** Builds the subclass that matches a status and body. */
  static generate(status: number, body: unknown, headers: Headers): APIError {
    const init = { status, body, headers }
    switch (status) {
      case 400:
        return new BadRequestError(init)
      case 401:
        return new AuthenticationError(init)
      case 403:
        return new PermissionDeniedError(init)
      case 404:
        return new NotFoundError(init)
      case 409:
        return new ConflictError(init)
      case 422:
        return new ValidationError(init)
      case 429:
        return isTemplateQuota(body) ? new TemplateQuotaError(init) : new RateLimitError(init)
      case 501:
        return new NotImplementedError(init)
      case 502:
        return new UpstreamError(init)
    }
    return status >= 500 ? new InternalServerError(init) : new APIError(init)
  }
}

/** The 429 detail prefix of the monthly template quota (mirrors `TEMPLATE_QUOTA_PREFIX` of @platform/shared). */
export const TEMPLATE_QUOTA_PREFIX = "template quota exceeded"

/** Whether a 429 body is the template quota (never retried) rather than the per-key rate limit. */
export const isTemplateQuota = (body: unknown): boolean => {
  const detail = detailOf(body)
  return typeof detail === "string" && detail.startsWith(TEMPLATE_QUOTA_PREFIX)
}

/** 400: the request was rejected before any upstream call (for example `chat_only`). */
export class BadRequestError extends APIError {
  override readonly name = "BadRequestError"
}

/** 401: the API key is missing, invalid, inactive or expired. */
export class AuthenticationError extends APIError {
  override readonly name = "AuthenticationError"
}

/** 403: the key lacks the scope the route requires (`requiredScope`), or the plan forbids it. */
export class PermissionDeniedError extends APIError {
  override readonly name = "PermissionDeniedError"
  /** The scope the route requires, when the error is `missing_scope`. */
  readonly requiredScope: string | undefined
  constructor(init: APIErrorInit) {
    super(init)
    const scope = codedDetail(init.body)?.required_scope
    this.requiredScope = typeof scope === "string" ? scope : undefined
  }
}

/** 404: the resource does not exist or belongs to another account. */
export class NotFoundError extends APIError {
  override readonly name = "NotFoundError"
}

/** 409: the resource's state forbids the operation (`status_locked`) or an idempotent request is still running. */
export class ConflictError extends APIError {
  override readonly name = "ConflictError"
}

/** 422: the request is invalid; `detail` lists each problem with its location. */
export class ValidationError extends APIError {
  override readonly name = "ValidationError"
  /** The validation issues (`loc`, `msg`, `type`, `input`, `ctx`); empty for coded 422 errors such as `no_recipients`. */
  readonly detail: ReadonlyArray<ValidationIssue>
  constructor(init: APIErrorInit) {
    super(init)
    const detail = detailOf(init.body)
    this.detail = Array.isArray(detail) ? (detail as ReadonlyArray<ValidationIssue>) : []
  }
}

/** Reads `Retry-After` (seconds or an HTTP date) as seconds from now. */
export const parseRetryAfter = (headers: Headers, now: number = Date.now()): number | undefined => {
  const ms = headers.get("retry-after-ms")
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms) / 1000)
  const value = headers.get("retry-after")
  if (value === null || value.trim() === "") return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000)
}

/** 429 per-key rate limit: retried automatically with backoff; `retryAfter` is in seconds. */
export class RateLimitError extends APIError {
  override readonly name = "RateLimitError"
  /** Seconds to wait before retrying, from `Retry-After`. */
  readonly retryAfter: number | undefined
  constructor(init: APIErrorInit) {
    super(init)
    this.retryAfter = parseRetryAfter(init.headers)
  }
}

/** 429 monthly template quota exceeded: never retried; upgrade the plan or wait for the monthly reset. */
export class TemplateQuotaError extends APIError {
  override readonly name = "TemplateQuotaError"
}

/** 5xx other than 501 and 502. */
export class InternalServerError extends APIError {
  override readonly name = "InternalServerError"
}

/** 501: the operation is not available (for example display-name submit). */
export class NotImplementedError extends APIError {
  override readonly name = "NotImplementedError"
}

/**
 * 502: the upstream (Meta) rejected the call; `metaCode`, `metaSubcode` and `fbtraceId` say why, `hint` what to do. Read from the
 * send route's envelope or from the coded `{detail: {code: "upstream_error", ...}}` of the other routes.
 */
export class UpstreamError extends APIError {
  override readonly name = "UpstreamError"
  /** Meta's error code, such as 131047. */
  readonly metaCode: number | null
  /** Meta's error subcode. */
  readonly metaSubcode: number | null
  /** Meta's error title. */
  readonly metaTitle: string | null
  /** Meta's trace id, for Meta support. */
  readonly fbtraceId: string | null
  /** What to do about the error, for the Meta codes developers meet most (131047, 131026, 132001, ...); also at the end of `message`. */
  readonly hint: string | null
  constructor(init: APIErrorInit) {
    const hint = hintOf(init.body)
    super(hint === null || init.message !== undefined ? init : { ...init, message: `${describe(init.status, init.body)}. Hint: ${hint}` })
    this.hint = hint
    const b = codedDetail(init.body) ?? ((init.body !== null && typeof init.body === "object" ? init.body : {}) as Record<string, unknown>)
    const num = (v: unknown) => (typeof v === "number" ? v : null)
    const str = (v: unknown) => (typeof v === "string" ? v : null)
    this.metaCode = num(b.meta_code)
    this.metaSubcode = num(b.meta_subcode)
    this.metaTitle = str(b.meta_title)
    this.fbtraceId = str(b.fbtrace_id)
  }
}

/** Options of `UnexpectedResponseError`. */
export interface UnexpectedResponseInit extends APIErrorInit {
  /** The request, as `GET http://host/platform/v1/channels`. */
  readonly request: string
  /** The client's base URL. */
  readonly baseUrl: string
  /** What the route answers with: `JSON` or `an event stream (text/event-stream)`. */
  readonly expected: string
  /** Why the body was rejected although its type looked right (a JSON parse error). */
  readonly problem?: string | undefined
}

/** A 2xx answer that is not the API's (an HTML page, a body that is not JSON): the base URL most likely points at another server or a proxy. */
export class UnexpectedResponseError extends APIError {
  override readonly name = "UnexpectedResponseError"
  /** The response's `Content-Type`, undefined when it had none. */
  readonly contentType: string | undefined
  constructor(init: UnexpectedResponseInit) {
    const contentType = init.headers.get("content-type") ?? undefined
    const got = `${init.status} ${contentType === undefined ? "without a Content-Type" : contentType}`
    const what = init.problem === undefined ? `, not ${init.expected}` : ` whose body is not ${init.expected} (${init.problem})`
    super({
      ...init,
      message: `${init.request} answered ${got}${what}: the base URL ${init.baseUrl} may not be the platform API (another server or a proxy answered).`
    })
    this.contentType = contentType
  }
}

/** `getNextPage()` was called on the last page; check `hasNextPage()` first, or `for await` the list. */
export class NoNextPageError extends PlatformError {
  override readonly name = "NoNextPageError"
  constructor() {
    super("No next page: this is the last page; check hasNextPage() before calling getNextPage(), or use `for await` to walk every page.")
  }
}

/** `media.upload` got a path it cannot read: missing, a directory, or not readable; no request was sent. */
export class MediaFileError extends PlatformError {
  override readonly name = "MediaFileError"
  /** The path as given. */
  readonly path: string
  /** Why it cannot be uploaded: `no such file`, `it is a directory, not a file`, `permission denied`, ... */
  readonly reason: string
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(`media.upload: cannot read ${path}: ${reason}`, options)
    this.path = path
    this.reason = reason
  }
}

/** The request never got an HTTP answer (DNS, refused or reset connection, TLS). */
export class APIConnectionError extends PlatformError {
  override readonly name: string = "APIConnectionError"
  /** Always undefined: there was no response. */
  readonly status: undefined = undefined
  /** Always undefined: there was no response. */
  readonly code: string | undefined = undefined
  /** Always undefined: there was no response. */
  readonly requestId: undefined = undefined
  constructor(message = "Connection error.", options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** The request exceeded its `timeout`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override readonly name = "APIConnectionTimeoutError"
  constructor(message = "Request timed out.") {
    super(message)
  }
}

/** The request was aborted through its `signal`. */
export class APIUserAbortError extends PlatformError {
  override readonly name = "APIUserAbortError"
  constructor(message = "Request was aborted.") {
    super(message)
  }
}
