/**
 * How the safe HTTP client fails: one tagged error per kind of failure, each with a
 * human `reason` for delivery records, and the mapping of undici and socket error
 * codes onto them.
 */
import { Schema } from "effect"
import type { SsrfRejected } from "./ssrf.js"

/** The whole exchange took longer than `timeoutMs` (before response headers arrived). */
export class SafeHttpTimeout extends Schema.TaggedError<SafeHttpTimeout>()("SafeHttpTimeout", {
  url: Schema.String,
  timeoutMs: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** The connection could not be made or broke (refused, reset, unreachable). */
export class SafeHttpConnectionError extends Schema.TaggedError<SafeHttpConnectionError>()("SafeHttpConnectionError", {
  url: Schema.String,
  code: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** TLS handshake or certificate verification failed. */
export class SafeHttpTlsError extends Schema.TaggedError<SafeHttpTlsError>()("SafeHttpTlsError", {
  url: Schema.String,
  code: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** The request itself was unusable (e.g. a header value undici refuses). */
export class SafeHttpRequestInvalid extends Schema.TaggedError<SafeHttpRequestInvalid>()("SafeHttpRequestInvalid", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** A download answered something other than a 2xx with a body within the cap. */
export class SafeDownloadRefused extends Schema.TaggedError<SafeDownloadRefused>()("SafeDownloadRefused", {
  url: Schema.String,
  kind: Schema.Literal("redirect", "http_status", "too_large"),
  status: Schema.optional(Schema.Number),
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** Every way `safeFetch` can fail; each carries a human `reason` for delivery records. */
export type SafeHttpError =
  | SsrfRejected
  | SafeHttpTimeout
  | SafeHttpConnectionError
  | SafeHttpTlsError
  | SafeHttpRequestInvalid

export type SafeDownloadError = SafeHttpError | SafeDownloadRefused

const errorCode = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && code !== "UND_ERR_SOCKET" && code !== "UND_ERR") return code
    current = (current as { cause?: unknown }).cause
  }
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

const errorMessage = (error: unknown): string => error instanceof Error ? error.message : String(error)

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"])

const isTlsCode = (code: string) =>
  /^(ERR_TLS_|ERR_SSL_)/.test(code) || /CERT|SELF_SIGNED|LEAF_SIGNATURE|ISSUER/.test(code) || code === "EPROTO" ||
  code === "HOSTNAME_MISMATCH"

const CONNECTION_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the receiver",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed by the receiver",
  UND_ERR_CLOSED: "connection closed"
}

/** Turns an error thrown by undici (or the socket under it) into the failure that names it. */
export const classify = (error: unknown, url: string, timedOut: boolean, timeoutMs: number): SafeHttpError => {
  const code = errorCode(error) ?? "UNKNOWN"
  if (timedOut || TIMEOUT_CODES.has(code)) {
    return new SafeHttpTimeout({ url, timeoutMs, reason: `no response within ${timeoutMs} ms` })
  }
  if (isTlsCode(code)) {
    return new SafeHttpTlsError({ url, code, reason: `TLS failed (${code}): ${errorMessage(error)}` })
  }
  if (code === "UND_ERR_INVALID_ARG" || code === "ERR_INVALID_ARG_TYPE" || code === "ERR_INVALID_CHAR") {
    return new SafeHttpRequestInvalid({ url, reason: `invalid request: ${errorMessage(error)}` })
  }
  const known = CONNECTION_REASONS[code]
  return new SafeHttpConnectionError({
    url,
    code,
    reason: known !== undefined ? `${known} (${code})` : `connection failed (${code}): ${errorMessage(error)}`
  })
}
