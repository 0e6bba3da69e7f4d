import { APIConnectionTimeoutError, APIError, APIUserAbortError, PlatformError, parseRetryAfter } from "./errors.js"
import type { LastEventIdNotFound } from "../types.js"
import { BACKOFF_SECONDS, isRetryable, timers } from "./request.js"

/** The `event:` of the stream's notice that `Last-Event-ID` was not found (mirrors `LAST_EVENT_ID_NOT_FOUND` of @platform/shared). */
export const LAST_EVENT_ID_NOT_FOUND = "last_event_id_not_found"

/** One Server-Sent Events message. */
export interface ServerSentEvent {
  /** The `id:` field (for the stream route, the event id `evt_...`). */
  readonly id: string | undefined
  /** The `event:` field; `message` when absent. */
  readonly event: string
  /** The `data:` lines joined with newlines, exactly as sent. */
  readonly data: string
}

/** Parses a byte stream of `text/event-stream` into messages, honouring `retry:` through the callback. */
export async function* parseSSE(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  onRetry?: (ms: number) => void
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder()
  let buffer = ""
  let data: string[] = []
  let event = ""
  let id: string | undefined
  // A ReadableStream is read through our own reader (not its async iterator, whose return() awaits the cancel).
  const iterable: AsyncIterable<Uint8Array> =
    typeof (stream as Partial<ReadableStream<Uint8Array>>).getReader === "function"
      ? readerIterable(stream as ReadableStream<Uint8Array>)
      : (stream as AsyncIterable<Uint8Array>)
  const lines = function* (final: boolean): Generator<string> {
    for (;;) {
      const m = /\r\n|\r|\n/.exec(buffer)
      if (!m) break
      // A lone \r at the end may be the first half of \r\n: wait for more input.
      if (m[0] === "\r" && m.index === buffer.length - 1 && !final) break
      yield buffer.slice(0, m.index)
      buffer = buffer.slice(m.index + m[0].length)
    }
    if (final && buffer !== "") {
      yield buffer
      buffer = ""
    }
  }
  const handle = function* (line: string): Generator<ServerSentEvent> {
    if (line === "") {
      if (data.length > 0) yield { id, event: event === "" ? "message" : event, data: data.join("\n") }
      data = []
      event = ""
      return
    }
    if (line.startsWith(":")) return
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") data.push(value)
    else if (field === "event") event = value
    else if (field === "id" && !value.includes("\0")) id = value
    else if (field === "retry" && /^\d+$/.test(value)) onRetry?.(Number(value))
  }
  for await (const chunk of iterable) {
    buffer += decoder.decode(chunk, { stream: true })
    for (const line of lines(false)) yield* handle(line)
  }
  buffer += decoder.decode()
  for (const line of lines(true)) yield* handle(line)
}

async function* readerIterable(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      if (value) yield value
    }
  } finally {
    // Not awaited: a fetch body's cancel may settle late or never (msw's held streams never do), and
    // leaving the loop (break, close(), a --count reached) must not wait for it.
    void reader.cancel().catch(() => undefined)
    reader.releaseLock()
  }
}

/** Opens one connection of the stream, resuming after `lastEventId` when given. */
export type StreamConnector = (lastEventId: string | undefined, signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>

/** Options of a reconnecting stream. */
export interface EventStreamOptions {
  /** Resume after this event id (sent as `Last-Event-ID` on the first connection). */
  readonly lastEventId?: string | undefined
  /** Stops the stream; iteration then ends without an error. */
  readonly signal?: AbortSignal | undefined
  /** Called after a dropped connection, before waiting `delayMs` to reconnect. */
  readonly onReconnect?: ((info: { readonly attempt: number; readonly delayMs: number; readonly error: unknown }) => void) | undefined
  /** Give up after this many consecutive failed reconnects (default: never). */
  readonly maxReconnects?: number | undefined
  /** Called each time a connection is established (the server answered), before its first message. */
  readonly onOpen?: ((info: { readonly reconnect: boolean }) => void) | undefined
  /**
   * Milliseconds without a byte on an open connection after which it is taken for dead (a laptop that slept, a NAT
   * that forgot it) and replaced, resuming after the last event; 0 never. Default 45 000: the server writes at least
   * a keep-alive every 15 s. Time the consumer spends on a message is not counted.
   */
  readonly idleTimeoutMs?: number | undefined
  /**
   * Called when the server could not resume after the `Last-Event-ID` sent (unknown, or older than 24 hours):
   * the stream goes on from the newest event, and events after the one asked for may have been missed.
   */
  readonly onLastEventIdNotFound?: ((info: LastEventIdNotFound) => void) | undefined
}

/** Default `idleTimeoutMs`: three of the server's 15-second keep-alives. */
export const STREAM_IDLE_TIMEOUT_MS = 45_000

/** Passes the chunks of a body through, calling `onChunk` before each. */
async function* watched(body: ReadableStream<Uint8Array>, onChunk: () => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of readerIterable(body)) {
    onChunk()
    yield chunk
  }
}

/** A Server-Sent Events stream that reconnects on its own with `Last-Event-ID`; `for await` yields parsed items. */
export class EventStream<T> implements AsyncIterable<T> {
  /** The id of the last message received; a new stream given it resumes right after. */
  lastEventId: string | undefined
  readonly #connect: StreamConnector
  readonly #map: (message: ServerSentEvent) => T | undefined
  readonly #options: EventStreamOptions
  readonly #controller = new AbortController()

  constructor(connect: StreamConnector, map: (message: ServerSentEvent) => T | undefined, options: EventStreamOptions = {}) {
    this.#connect = connect
    this.#map = map
    this.#options = options
    this.lastEventId = options.lastEventId
    const signal = options.signal
    if (signal?.aborted) this.#controller.abort()
    else signal?.addEventListener("abort", () => this.#controller.abort(), { once: true })
  }

  /** Stops the stream: the current connection closes and iteration ends. */
  close(): void {
    this.#controller.abort()
  }

  /** Iterates over the raw messages (`id`, `event`, `data` as sent), reconnecting as needed. */
  async *messages(): AsyncGenerator<ServerSentEvent> {
    const signal = this.#controller.signal
    let failures = 0
    let serverRetryMs: number | undefined
    let opened = false
    const idleMs = this.#options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS
    while (!signal.aborted) {
      let error: unknown
      let retryAfterMs: number | undefined
      // Each connection has its own signal, so a connection gone silent can be dropped without ending the stream.
      const connection = new AbortController()
      const drop = () => connection.abort()
      signal.addEventListener("abort", drop, { once: true })
      let idle = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const arm = () => {
        if (idleMs <= 0) return
        clearTimeout(timer)
        timer = setTimeout(() => {
          idle = true
          connection.abort()
        }, idleMs)
      }
      try {
        const body = await this.#connect(this.lastEventId, connection.signal)
        this.#options.onOpen?.({ reconnect: opened })
        opened = true
        arm()
        // Any byte, a keep-alive included, shows the connection works: only failures in a row count towards maxReconnects.
        const alive = () => {
          failures = 0
          arm()
        }
        for await (const message of parseSSE(watched(body, alive), (ms) => (serverRetryMs = ms))) {
          if (message.id !== undefined && message.id !== "") this.lastEventId = message.id
          if (message.event === LAST_EVENT_ID_NOT_FOUND) this.#notFound(message)
          // Idle is time spent waiting on the server: while the consumer holds a message (a slow forward), nothing is read.
          clearTimeout(timer)
          yield message
          arm()
        }
      } catch (e) {
        if (signal.aborted || (e instanceof APIUserAbortError && !idle)) return
        if (e instanceof APIError && !isRetryable({ kind: "response", status: e.status, body: e.body }, true)) throw e
        if (e instanceof APIError) {
          const seconds = parseRetryAfter(e.headers)
          retryAfterMs = seconds === undefined ? undefined : Math.round(seconds * 1000)
        }
        error = e
      } finally {
        clearTimeout(timer)
        signal.removeEventListener("abort", drop)
        connection.abort()
      }
      if (signal.aborted) return
      if (idle) error = new APIConnectionTimeoutError(`no data for ${idleMs / 1000} s`)
      failures++
      if (this.#options.maxReconnects !== undefined && failures > this.#options.maxReconnects) {
        throw error ?? new PlatformError("The event stream kept closing; giving up.")
      }
      // A 429's or 503's Retry-After is waited as given (as for requests); otherwise the server's `retry:` or the backoff, with jitter.
      const base = serverRetryMs ?? BACKOFF_SECONDS[Math.min(failures - 1, BACKOFF_SECONDS.length - 1)]! * 1000
      const delayMs = retryAfterMs ?? Math.round(base * (1 + (timers.random() * 2 - 1) * 0.25))
      this.#options.onReconnect?.({ attempt: failures, delayMs, error })
      try {
        await timers.sleep(delayMs, signal)
      } catch {
        return
      }
    }
  }

  #notFound(message: ServerSentEvent): void {
    let info: LastEventIdNotFound
    try {
      info = JSON.parse(message.data) as LastEventIdNotFound
    } catch {
      return
    }
    this.#options.onLastEventIdNotFound?.(info)
  }

  /** Iterates over the parsed items, skipping messages the mapper ignores (keep-alives). */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const message of this.messages()) {
      const item = this.#map(message)
      if (item !== undefined) yield item
    }
  }
}
