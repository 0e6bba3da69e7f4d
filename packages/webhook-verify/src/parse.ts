import { toBytes } from "./encoding.js"
import { assertRawBody, failure, type RawBody, type VerifyFailure } from "./errors.js"
import { isEventType, type UnknownWebhookEvent, type WebhookEvent } from "./events.js"
import { checkSecrets, verifySignature, type SignatureFailureReason } from "./verify.js"

/** Why a body could not be parsed into events. */
export type ParseFailureReason = "invalid_json" | "invalid_envelope"

/** Successfully parsed delivery: one envelope, or a batch (a body with a top-level `events` key, SPEC §6.4). */
export interface ParsedDelivery {
  /** Always true on success. */
  readonly ok: true
  /** Whether the body was a batch `{ events: [...] }`. */
  readonly batch: boolean
  /** The events of the twelve known types, in delivery order, typed by event type. */
  readonly events: ReadonlyArray<WebhookEvent>
  /** Envelopes whose event type is newer than this library, as generic envelopes (usually empty). */
  readonly unknownEvents: ReadonlyArray<UnknownWebhookEvent>
}

/** The result of `parse`. */
export type ParseResult = ParsedDelivery | VerifyFailure<ParseFailureReason>

/** The result of `verifyAndParse`. */
export type VerifyAndParseResult = ParsedDelivery | VerifyFailure<SignatureFailureReason | ParseFailureReason>

const API_VERSION = "platform-v1"

const decoder = new TextDecoder("utf-8", { fatal: true })

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function envelopeProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "is not an object"
  if (typeof value.id !== "string") return "id must be a string"
  if (typeof value.event !== "string") return "event must be a string"
  if (typeof value.developer_account_id !== "number") return "developer_account_id must be a number"
  if (value.platform_channel_id !== null && typeof value.platform_channel_id !== "number") {
    return "platform_channel_id must be a number or null"
  }
  if (typeof value.occurred_at !== "string") return "occurred_at must be a string"
  if (typeof value.api_version !== "string") return "api_version must be a string"
  if (!isObject(value.data)) return "data must be an object"
  return undefined
}

/** Parses JSON text that has already been decoded. */
export function parseText(text: string): ParseResult {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return failure("invalid_json", `the body is not valid JSON: ${(error as Error).message}`)
  }
  if (!isObject(json)) return failure("invalid_envelope", "the body must be a JSON object (an envelope or a batch)")
  if (Object.hasOwn(json, "events")) {
    const events = json.events
    if (!Array.isArray(events)) return failure("invalid_envelope", "a batch's events must be an array")
    for (let i = 0; i < events.length; i++) {
      const problem = envelopeProblem(events[i])
      if (problem !== undefined) return failure("invalid_envelope", `events[${i}] ${problem}`)
    }
    return split(true, events as Array<WebhookEvent | UnknownWebhookEvent>)
  }
  const problem = envelopeProblem(json)
  if (problem !== undefined) return failure("invalid_envelope", `the envelope's ${problem}`)
  return split(false, [json as unknown as WebhookEvent | UnknownWebhookEvent])
}

function split(batch: boolean, envelopes: ReadonlyArray<WebhookEvent | UnknownWebhookEvent>): ParsedDelivery {
  const events: WebhookEvent[] = []
  const unknownEvents: UnknownWebhookEvent[] = []
  for (const envelope of envelopes) {
    if (isEventType(envelope.event) && envelope.api_version === API_VERSION) events.push(envelope as WebhookEvent)
    else unknownEvents.push(envelope as UnknownWebhookEvent)
  }
  return { ok: true, batch, events, unknownEvents }
}

/** Decodes a raw body as UTF-8 text. */
export function decodeBody(rawBody: RawBody | ArrayBufferView): string | VerifyFailure<"invalid_json"> {
  if (typeof rawBody === "string") return rawBody
  try {
    return decoder.decode(toBytes(rawBody))
  } catch {
    return failure("invalid_json", "the body is not valid UTF-8")
  }
}

/** Parses a raw body into typed events: a top-level `events` key means a batch, anything else one envelope; unknown event types come back in `unknownEvents` as generic envelopes. */
export function parse(rawBody: RawBody): ParseResult {
  assertRawBody(rawBody, "parse")
  return parseRaw(rawBody)
}

/** Verifies `X-Platform-Signature` (one secret or a rotation list) and, if it matches, parses the body into typed events. */
export async function verifyAndParse(
  secret: string | ReadonlyArray<string>,
  rawBody: RawBody,
  signatureHeader: string | null | undefined
): Promise<VerifyAndParseResult> {
  const secrets = checkSecrets(secret, "verifyAndParse")
  assertRawBody(rawBody, "verifyAndParse")
  const verified = verifySignature(secrets, rawBody, signatureHeader)
  if (verified instanceof Promise) return verified.then((v) => (v.ok ? parseRaw(rawBody) : v))
  return verified.ok ? parseRaw(rawBody) : verified
}

function parseRaw(rawBody: RawBody): ParseResult {
  const text = decodeBody(rawBody)
  return typeof text === "string" ? parseText(text) : text
}
