import { standardKey } from "../crypto.js"
import { failure, misuse, type RawBody, type VerifyFailure } from "../errors.js"
import type { UnknownWebhookEvent, WebhookEvent } from "../events.js"
import { getHeader, type HeadersLike } from "../headers.js"
import { decodeBody, parseText } from "../parse.js"
import { verifyStandardSignature } from "../standard.js"
import { checkSecrets, SIGNATURE_HEADER, verifySignature, type Secrets } from "../verify.js"

/** What an `onEvent` callback learns about the delivery besides the event. */
export interface DeliveryInfo {
  /** `X-Platform-Delivery-Id`: the same on every retry of the delivery, or null if absent. */
  readonly deliveryId: string | null
  /** Whether the event arrived inside a batch. */
  readonly batch: boolean
}

/** Options shared by every adapter. */
export interface WebhookHandlerOptions {
  /** The subscription secret, or several (current first) during rotation. */
  readonly secret: string | ReadonlyArray<string>
  /** Called once per event, in delivery order; a throw or rejection answers 500 so the platform retries. */
  readonly onEvent: (event: WebhookEvent, delivery: DeliveryInfo) => void | Promise<void>
  /** Called once per envelope of an event type newer than this library (default: acknowledged and ignored). */
  readonly onUnknownEvent?: (event: UnknownWebhookEvent, delivery: DeliveryInfo) => void | Promise<void>
  /** Which signature to check: `platform` (`X-Platform-Signature`, default) or `standard` (Standard Webhooks headers). */
  readonly scheme?: "platform" | "standard"
  /** Timestamp tolerance in seconds for the `standard` scheme (default 300). */
  readonly toleranceSeconds?: number
  /** Largest accepted body in bytes (default 5 MiB); larger bodies answer 413. */
  readonly maxBodyBytes?: number
}

/** The outcome of handling a delivery, before it is written to a response. */
export interface HandlerReply {
  readonly status: number
  readonly body: string | null
}

/** Options with defaults applied and validated. */
export interface ResolvedOptions {
  readonly secrets: Secrets
  readonly onEvent: WebhookHandlerOptions["onEvent"]
  readonly onUnknownEvent: NonNullable<WebhookHandlerOptions["onUnknownEvent"]> | undefined
  readonly scheme: "platform" | "standard"
  readonly toleranceSeconds: number
  readonly maxBodyBytes: number
}

/** Validates adapter options at construction time so misconfiguration fails at startup. */
export function resolveOptions(options: WebhookHandlerOptions, fn: string): ResolvedOptions {
  if (typeof options !== "object" || options === null) throw misuse(`${fn}() needs an options object`)
  const secrets = checkSecrets(options.secret, fn)
  if (typeof options.onEvent !== "function") throw misuse(`${fn}() needs an onEvent(event) callback`)
  if (options.onUnknownEvent !== undefined && typeof options.onUnknownEvent !== "function") {
    throw misuse(`${fn}() onUnknownEvent must be a function`)
  }
  const scheme = options.scheme ?? "platform"
  if (scheme !== "platform" && scheme !== "standard") throw misuse(`${fn}() scheme must be "platform" or "standard"`)
  // Checked here, not per request: a string or NaN limit compares false with every size (no limit), a bad tolerance throws at each delivery.
  const maxBodyBytes: unknown = options.maxBodyBytes ?? 5 * 1024 * 1024
  if (typeof maxBodyBytes !== "number" || !(maxBodyBytes > 0)) {
    throw misuse(`${fn}() maxBodyBytes must be a positive number of bytes, got ${shown(maxBodyBytes)}`)
  }
  const toleranceSeconds: unknown = options.toleranceSeconds ?? 300
  if (typeof toleranceSeconds !== "number" || !(toleranceSeconds >= 0)) {
    throw misuse(`${fn}() toleranceSeconds must be a number of seconds >= 0, got ${shown(toleranceSeconds)}`)
  }
  // The standard scheme keys with the base64 after whsec_: a secret that is not one would answer every delivery 500.
  if (scheme === "standard") for (const secret of typeof secrets === "string" ? [secrets] : secrets) standardKey(secret, fn)
  return { secrets, onEvent: options.onEvent, onUnknownEvent: options.onUnknownEvent, scheme, toleranceSeconds, maxBodyBytes }
}

/** A misused option's value as the message shows it: strings quoted, numbers as they print. */
function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value)
}

const JSON_HEADERS = { "content-type": "application/json" } as const

/** Headers to send with a reply body. */
export function replyHeaders(reply: HandlerReply): Record<string, string> {
  return reply.body === null ? {} : JSON_HEADERS
}

function reject(status: number, error: string, result: VerifyFailure): HandlerReply {
  return { status, body: JSON.stringify({ error, reason: result.reason, message: result.message }) }
}

/** Reply for a non-POST request. */
export const METHOD_NOT_ALLOWED: HandlerReply = reject(405, "method_not_allowed", failure("method", "webhooks are POSTed"))

/** Reply for a body over `maxBodyBytes`. */
export const TOO_LARGE: HandlerReply = reject(413, "payload_too_large", failure("size", "the body exceeds maxBodyBytes"))

/** Reply for a body that broke off before its end: the client aborted or the connection failed mid-body. */
export const INCOMPLETE_BODY: HandlerReply = reject(
  400,
  "invalid_body",
  failure("incomplete_body", "the request body broke off before its end (the client aborted or the connection failed)")
)

/** Whether req.body is only body-parser 1.x's (Express 4) default `{}`: set before any parser looked at the type, the stream unread. */
export function unreadDefault(request: { readonly body?: unknown; readonly _body?: unknown }): boolean {
  const body = request.body
  return request._body !== true && typeof body === "object" && body !== null && Object.getPrototypeOf(body) === Object.prototype && Object.keys(body).length === 0
}

/** Verifies, parses and dispatches one delivery; rejects only when `onEvent` throws. */
export async function handleDelivery(options: ResolvedOptions, headers: HeadersLike, rawBody: RawBody): Promise<HandlerReply> {
  const verified =
    options.scheme === "platform"
      ? await verifySignature(options.secrets, rawBody, getHeader(headers, SIGNATURE_HEADER))
      : await verifyStandardSignature(options.secrets, rawBody, headers, { toleranceSeconds: options.toleranceSeconds }, "handler")
  if (!verified.ok) return reject(401, "invalid_signature", verified)
  const text = decodeBody(rawBody)
  const parsed = typeof text === "string" ? parseText(text) : text
  if (!parsed.ok) return reject(400, "invalid_body", parsed)
  const delivery: DeliveryInfo = { deliveryId: getHeader(headers, "x-platform-delivery-id") ?? null, batch: parsed.batch }
  for (const event of parsed.events) await options.onEvent(event, delivery)
  if (options.onUnknownEvent !== undefined) {
    for (const event of parsed.unknownEvents) await options.onUnknownEvent(event, delivery)
  }
  return { status: 204, body: null }
}
