import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { Effect, HashMap, Layer, List, Logger, LogLevel } from "effect"
import { HttpAppLive } from "../../src/server.js"
import { TestDatabase } from "../support/database.js"
import { TestConfig, TestListener } from "../support/server.js"

/** Every log line the server wrote during the test file, as text (message and annotations). */
export const capturedLogs: Array<string> = []

const CaptureLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, cause, logLevel, message }) => {
    capturedLogs.push(JSON.stringify({
      level: logLevel.label,
      message: List.isList(message) ? List.toArray(message) : message,
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
      cause: String(cause)
    }))
  })
)

/**
 * The whole HTTP surface like `TestServer`, but with the domain services (ApiKeys,
 * RateLimiter, ...) left in the context so a test can reach the same instances the
 * server uses, and with every log line captured at every level.
 */
export const AuthTestServer = (configOverrides: Record<string, string> = {}) =>
  HttpApiBuilder.serve().pipe(
    Layer.provideMerge(HttpAppLive),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(TestConfig({ LOG_LEVEL: "debug", ...configOverrides })),
    Layer.provideMerge(TestListener),
    Layer.provide(Layer.merge(CaptureLogger, Logger.minimumLogLevel(LogLevel.All)))
  )

export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://localhost"
})

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
  readonly setCookies: ReadonlyArray<string>
}

/** Every response body and header block the tests received, for the secret scan. */
export const capturedResponses: Array<string> = []

export interface RequestOptions {
  readonly body?: unknown
  readonly rawBody?: string
  readonly key?: string
  readonly cookie?: string
  readonly headers?: Record<string, string>
}

export const request = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async (): Promise<Reply> => {
      const headers: Record<string, string> = { ...options.headers }
      if (options.key !== undefined) headers["x-api-key"] = options.key
      if (options.cookie !== undefined) headers["cookie"] = options.cookie
      let body: string | undefined
      if (options.rawBody !== undefined) body = options.rawBody
      else if (options.body !== undefined) body = JSON.stringify(options.body)
      if (body !== undefined) headers["content-type"] ??= "application/json"
      const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body }) })
      const text = await res.text()
      capturedResponses.push(`${method} ${path} ${res.status} ${JSON.stringify([...res.headers])} ${text}`)
      let parsed: unknown = null
      try {
        parsed = text.length > 0 ? JSON.parse(text) : null
      } catch {
        parsed = text
      }
      return { status: res.status, headers: res.headers, text, body: parsed, setCookies: res.headers.getSetCookie() }
    }))

/**
 * Like `request`, for routes that may stream (SSE): the body is read for at most
 * `ms` and then the request is aborted; `body` is parsed when the read completed.
 */
export const probe = (method: string, path: string, options: RequestOptions = {}, ms = 1500) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async (): Promise<Reply> => {
      const headers: Record<string, string> = { ...options.headers }
      if (options.key !== undefined) headers["x-api-key"] = options.key
      if (options.cookie !== undefined) headers["cookie"] = options.cookie
      const body = options.body === undefined ? undefined : JSON.stringify(options.body)
      if (body !== undefined) headers["content-type"] = "application/json"
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), ms)
      try {
        const res = await fetch(base + path, { method, headers, signal: controller.signal, ...(body === undefined ? {} : { body }) })
        let text = ""
        try {
          text = await res.text()
        } catch {
          // a stream still open after `ms`: its status is what the caller wants
        }
        capturedResponses.push(`${method} ${path} ${res.status} ${text}`)
        let parsed: unknown = null
        try {
          parsed = text.length > 0 ? JSON.parse(text) : null
        } catch {
          parsed = text
        }
        return { status: res.status, headers: res.headers, text, body: parsed, setCookies: res.headers.getSetCookie() }
      } finally {
        clearTimeout(timer)
      }
    }))

let counter = 0
export const uniqueEmail = (label = "dev") => `${label}.${Date.now().toString(36)}.${counter++}@example.com`

export interface Dev {
  readonly email: string
  readonly password: string
  readonly cookie: string
  readonly accountId: number
  readonly userId: number
}

export const cookieOf = (reply: Reply) => {
  const set = reply.setCookies.find((c) => c.startsWith("access_token_dev="))
  if (set === undefined) throw new Error(`no session cookie in ${reply.status} ${reply.text}`)
  return set.split(";")[0]!
}

/** Signs up a fresh developer (own account, owner) and returns their session cookie. */
export const signup = (label = "dev") =>
  Effect.gen(function*() {
    const email = uniqueEmail(label)
    const password = `pw-${Math.random().toString(36).slice(2)}-Secret!`
    const reply = yield* request("POST", "/platform/dashboard/signup", { body: { email, password, name: label } })
    if (reply.status !== 201) throw new Error(`signup ${reply.status} ${reply.text}`)
    return { email, password, cookie: cookieOf(reply), accountId: reply.body.account.id, userId: reply.body.user.id } satisfies Dev
  })

/** Creates a key through the dashboard; returns its id and plaintext. */
export const createKey = (dev: Dev, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const reply = yield* request("POST", "/platform/dashboard/api-keys", { cookie: dev.cookie, body: { name: "test", ...body } })
    if (reply.status !== 201) throw new Error(`create key ${reply.status} ${reply.text}`)
    return { id: reply.body.id as number, key: reply.body.key as string, body: reply.body }
  })

/** Connects a sandbox chat channel for the developer. */
export const connectChat = (dev: Dev, phoneNumberId = String(100000000000000 + Math.floor(Math.random() * 1e12))) =>
  Effect.gen(function*() {
    const reply = yield* request("POST", "/platform/dashboard/channels/connect/chat", {
      cookie: dev.cookie,
      body: { code: "sandbox-code", phone_number_id: phoneNumberId, waba_id: "WABA" + phoneNumberId }
    })
    return reply
  })
