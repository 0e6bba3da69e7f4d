import { APIClient, missingApiKey, readEnv, type RetryNotice } from "./core/request.js"
import { Broadcasts } from "./resources/broadcasts.js"
import { Channels } from "./resources/channels.js"
import { Contacts } from "./resources/contacts.js"
import { Conversations } from "./resources/conversations.js"
import { Events } from "./resources/events.js"
import { Media } from "./resources/media.js"
import { Messages } from "./resources/messages.js"
import { Templates } from "./resources/templates.js"
import { Webhooks } from "./resources/webhooks/index.js"

/** The default API origin: the local server of `npm start`. */
export const DEFAULT_BASE_URL = "http://localhost:8080"

/** Options of `new Platform()`. */
export interface ClientOptions {
  /** The API key (default: `PLATFORM_API_KEY`). */
  readonly apiKey?: string | undefined
  /** The API origin, an absolute http(s) URL; a trailing `/platform/v1` is dropped (default: `PLATFORM_BASE_URL`, else http://localhost:8080). */
  readonly baseUrl?: string | undefined
  /** Per-attempt timeout in milliseconds (default 60 000). */
  readonly timeout?: number | undefined
  /** Retries of a retryable failure (default 5: after about 1, 2, 4, 8 and 16 s). */
  readonly maxRetries?: number | undefined
  /** A fetch implementation (default: the global fetch). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Headers sent with every request. */
  readonly defaultHeaders?: Readonly<Record<string, string>> | undefined
  /** Called before the client waits to retry (a 429, a 5xx, a connection failure), so a caller can say it is waiting. */
  readonly onRetry?: ((retry: RetryNotice) => void) | undefined
  /** Aborts every request of this client, and any retry it waits for, when signalled (a per-call `signal` wins). */
  readonly signal?: AbortSignal | undefined
}

/** The platform API client: `new Platform({ apiKey })`, then `client.messages.sendText(...)`. */
export class Platform extends APIClient {
  /** Send messages and read receipts; list and retrieve the stored history. */
  readonly messages: Messages
  /** Upload media, get short-lived URLs, delete media. */
  readonly media: Media
  /** Create, edit, list, sync and delete message templates. */
  readonly templates: Templates
  /** The account's channels and their inbound kill-switch. */
  readonly channels: Channels
  /** List, retrieve, end or re-activate conversations. */
  readonly conversations: Conversations
  /** List, retrieve, update and delete contacts. */
  readonly contacts: Contacts
  /** Webhook subscriptions and deliveries. */
  readonly webhooks: Webhooks
  /** The live event stream. */
  readonly events: Events
  /** Template broadcasts on chat channels. */
  readonly broadcasts: Broadcasts

  constructor(options: ClientOptions = {}) {
    super({
      apiKey: options.apiKey ?? readEnv("PLATFORM_API_KEY") ?? missingApiKey(),
      baseUrl: options.baseUrl ?? readEnv("PLATFORM_BASE_URL") ?? DEFAULT_BASE_URL,
      timeout: options.timeout ?? 60_000,
      maxRetries: options.maxRetries ?? 5,
      fetch: options.fetch,
      defaultHeaders: options.defaultHeaders,
      onRetry: options.onRetry,
      signal: options.signal
    })
    this.messages = new Messages(this)
    this.media = new Media(this)
    this.templates = new Templates(this)
    this.channels = new Channels(this)
    this.conversations = new Conversations(this)
    this.contacts = new Contacts(this)
    this.webhooks = new Webhooks(this)
    this.events = new Events(this)
    this.broadcasts = new Broadcasts(this)
  }
}
