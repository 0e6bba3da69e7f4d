import { createRequire } from "node:module"
import { webCryptoBackend, type CryptoBackend, getBackend, setBackend } from "../src/crypto.js"
import { afterEach, beforeEach } from "vitest"

/** One X-Platform-Signature vector of test/vectors.json. */
export interface PlatformVector {
  readonly name: string
  readonly secret: string
  readonly body: string
  readonly header: string
}

/** One Standard Webhooks vector of test/vectors.json. */
export interface StandardVector {
  readonly name: string
  readonly secret: string
  readonly id: string
  readonly timestamp: number
  readonly body: string
  readonly signature: string
}

const require = createRequire(import.meta.url)
const vectors = require("./vectors.json") as {
  platform_signature: PlatformVector[]
  standard_webhooks: StandardVector[]
}

export const platformVectors = vectors.platform_signature
export const standardVectors = vectors.standard_webhooks

setBackend(undefined)
const detected = getBackend() as CryptoBackend

/** Both crypto backends, so every behaviour is checked with node:crypto and with WebCrypto. */
export const backends: ReadonlyArray<readonly [string, CryptoBackend]> = [
  ["node:crypto", detected],
  ["WebCrypto", webCryptoBackend(globalThis.crypto.subtle)]
]

/** Installs a backend for the tests of the enclosing describe block. */
export function useBackend(backend: CryptoBackend): void {
  beforeEach(() => setBackend(backend))
  afterEach(() => setBackend(undefined))
}

export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
export const OTHER_SECRET = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHMtb25seS0xMjM0"

const base = {
  developer_account_id: 42,
  platform_channel_id: 7,
  occurred_at: "2025-01-15T10:30:00.000Z",
  api_version: "platform-v1"
}

export const messageData = {
  message_id: 1001,
  conversation_id: 55,
  peer_id: "5511999990000",
  direction: "inbound",
  source: "contact",
  type: "text",
  text: "Olá 👋🏽",
  has_media: false,
  media_id: null,
  status: null,
  meta_message_id: "wamid.1"
}
export const conversationData = {
  conversation_id: 55,
  peer_id: "5511999990000",
  status: "active",
  message_count: 3,
  last_active_at: "2025-01-15T10:30:00.000Z"
}
export const channelData = { channel_id: 7, channel_type: "chat", meta_identifier_suffix: "0000" }
export const templateData = {
  template_id: 9,
  name: "order_update",
  language_code: "pt_BR",
  previous_status: "pending",
  status: "approved",
  meta_template_id: "1234",
  rejection_reason: null
}

/** The data payload that belongs to an event type. */
export function dataFor(event: string): Record<string, unknown> {
  if (event.startsWith("message.")) return messageData
  if (event.startsWith("conversation.")) return conversationData
  if (event.startsWith("channel.")) return channelData
  return templateData
}

let counter = 0

/** Builds an envelope object of the given type. */
export function envelope(event: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++
  return { id: `evt_${counter.toString(16).padStart(32, "0")}`, event, ...base, data: dataFor(event), ...overrides }
}
