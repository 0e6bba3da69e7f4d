import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

// Loaded by computed paths so the server's sources stay out of this package's type check.
const serverSupport = new URL("../../server/test/support/server.ts", import.meta.url).href
const workersModule = new URL("../../server/src/delivery/delivery-workers.ts", import.meta.url).href
const sendCycleModule = new URL("../../server/src/broadcasts/broadcast-send-cycle.ts", import.meta.url).href
const shutdownModule = new URL("../../server/src/jobs/shutdown.ts", import.meta.url).href

/**
 * A developer on the real server: session cookie, API key and a connected sandbox chat channel.
 * Shared by the SDK and CLI end-to-end tests (one server per test file, started in `beforeAll`).
 */
export interface RealServer {
  readonly baseUrl: string
  readonly apiKey: string
  readonly channelId: number
  readonly email: string
  readonly password: string
  /** The dashboard session cookie (`access_token_dev=...`). */
  readonly cookie: string
  /** A request to a dashboard route with the session cookie. */
  readonly dashboard: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>
  /** Injects an inbound text message from `from` through the sandbox route; returns its upstream message id. */
  readonly inbound: (from: string, text: string) => Promise<string>
  readonly close: () => Promise<void>
}

const call = async (url: string, method: string, body: unknown, cookie?: string) => {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", origin: new URL(url).origin, ...(cookie ? { cookie } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let parsed: any = text
  try {
    parsed = text === "" ? null : JSON.parse(text)
  } catch {
    // keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers }
}

/**
 * Starts the real HTTP server (packages/server's TestServer: loopback port, fresh
 * embedded or real Postgres per `DATABASE_URL`, sandbox upstream pointed at itself,
 * loopback webhook targets allowed) together with the delivery workers, signs up a
 * developer through the dashboard, creates an API key with every scope and connects
 * a sandbox chat channel. `config` adds server settings (the console's tests give DASHBOARD_DIR).
 * `options.broadcastSendCycle` runs the broadcast send cycle too (a pass at start, then every
 * 30 s), for a test that watches a broadcast complete; off by default, so a sent broadcast
 * stays `sending` where a test expects it to.
 */
export const startRealServer = async (
  config: Record<string, string> = {},
  options: { readonly broadcastSendCycle?: boolean } = {}
): Promise<RealServer> => {
  const mod = (await import(/* @vite-ignore */ serverSupport)) as {
    TestServer: (config?: Record<string, string>) => Layer.Layer<any, unknown, never>
    baseUrl: Effect.Effect<string, never, any>
  }
  const workers = (await import(/* @vite-ignore */ workersModule)) as { DeliveryWorkersLive: Layer.Layer<never, unknown, any> }
  const sendCycle = options.broadcastSendCycle === true
    ? ((await import(/* @vite-ignore */ sendCycleModule)) as { BroadcastSendCycleLive: Layer.Layer<never, unknown, any> }).BroadcastSendCycleLive.pipe(
      Layer.provide(((await import(/* @vite-ignore */ shutdownModule)) as { Shutdown: { Default: Layer.Layer<any, unknown, any> } }).Shutdown.Default)
    )
    : Layer.empty
  const layer = Layer.merge(workers.DeliveryWorkersLive, sendCycle).pipe(
    Layer.provideMerge(mod.TestServer({ UNSAFE_ALLOW_LOCAL_TARGETS: "true", ...config }))
  )
  const runtime = ManagedRuntime.make(layer as Layer.Layer<any, unknown, never>)
  try {
    const baseUrl = await runtime.runPromise(mod.baseUrl as Effect.Effect<string, never, any>)
    const email = `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`
    const password = `pw-${Math.random().toString(36).slice(2)}-Secret!`
    const signup = await call(`${baseUrl}/platform/dashboard/signup`, "POST", { email, password, name: "e2e" })
    if (signup.status !== 201) throw new Error(`signup answered ${signup.status}: ${JSON.stringify(signup.body)}`)
    const cookie = signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
    const dashboard = async (method: string, path: string, body?: unknown) => {
      const { status, body: parsed } = await call(`${baseUrl}${path}`, method, body, cookie)
      return { status, body: parsed }
    }
    // A suite drives one key through many commands within a minute: the default 60 a minute
    // would put a 429 wait in the middle of whichever test crosses it. Rate limits are tested
    // with keys of their own.
    const key = await dashboard("POST", "/platform/dashboard/api-keys", { name: "e2e", rate_limit_per_minute: 6000 })
    if (key.status !== 201) throw new Error(`api key answered ${key.status}: ${JSON.stringify(key.body)}`)
    const phone = String(100000000000000 + Math.floor(Math.random() * 1e12))
    const channel = await dashboard("POST", "/platform/dashboard/channels/connect/chat", { code: "sandbox-code", phone_number_id: phone, waba_id: `WABA${phone}` })
    if (channel.status !== 201) throw new Error(`channel connect answered ${channel.status}: ${JSON.stringify(channel.body)}`)
    const channelId = channel.body.channel_id as number
    return {
      baseUrl,
      apiKey: key.body.key as string,
      channelId,
      email,
      password,
      cookie,
      dashboard,
      inbound: async (from, text) => {
        const r = await dashboard("POST", "/platform/dashboard/sandbox/inbound", { channel_id: channelId, from, text })
        if (r.status !== 202) throw new Error(`sandbox inbound answered ${r.status}: ${JSON.stringify(r.body)}`)
        return r.body.message_id as string
      },
      close: () => runtime.dispose()
    }
  } catch (error) {
    await runtime.dispose()
    throw error
  }
}

/** One request a loopback receiver got: the raw body bytes as sent, and the headers. */
export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any
}

/** A node:http receiver on 127.0.0.1 that records every POST and answers 200 (or what `answer` says). */
export interface Receiver {
  readonly url: string
  readonly received: ReadonlyArray<Received>
  /** Resolves with the first request (already received or still to come) that matches, or rejects after `timeoutMs`. */
  readonly next: (match: (r: Received) => boolean, timeoutMs?: number) => Promise<Received>
  readonly close: () => Promise<void>
}

export const startReceiver = (answer: (r: Received) => number = () => 200): Promise<Receiver> =>
  new Promise((resolve) => {
    const received: Received[] = []
    let waiters: Array<{ match: (r: Received) => boolean; resolve: (r: Received) => void }> = []
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const body = Buffer.concat(chunks)
        let json: any
        try {
          json = JSON.parse(body.toString("utf8"))
        } catch {
          json = undefined
        }
        const r: Received = { path: req.url ?? "/", headers: req.headers, body, json }
        received.push(r)
        res.writeHead(answer(r), { "content-type": "text/plain" }).end("ok")
        waiters = waiters.filter((w) => {
          if (!w.match(r)) return true
          w.resolve(r)
          return false
        })
      })
    })
    server.keepAliveTimeout = 1000
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        received,
        next: (match, timeoutMs = 15_000) => {
          const found = received.find(match)
          if (found) return Promise.resolve(found)
          return within(new Promise<Received>((r) => waiters.push({ match, resolve: r })), timeoutMs, "a matching webhook request")
        },
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections()
            server.close(() => r())
          })
      })
    })
  })

/** Rejects when `promise` has not settled within `ms` (a bounded wait instead of a sleep). */
export const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
    })
  ]).finally(() => clearTimeout(timer))
}

/** Whether a webhook request carries one envelope (or a batch holding one) of this event type. */
export const hasEvent = (type: string, predicate: (envelope: any) => boolean = () => true) => (r: Received): boolean => {
  const events: any[] = Array.isArray(r.json?.events) ? r.json.events : r.json ? [r.json] : []
  return events.some((e) => e?.event === type && predicate(e))
}
