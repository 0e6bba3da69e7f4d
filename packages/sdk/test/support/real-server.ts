import { Effect, type Layer, ManagedRuntime } from "effect"

// Loaded by a computed path so the server's sources stay out of this package's type check.
const serverSupport = new URL("../../../server/test/support/server.ts", import.meta.url).href

/** A developer on the real server: session cookie, API key and a connected sandbox chat channel. */
export interface RealServer {
  readonly baseUrl: string
  readonly apiKey: string
  readonly channelId: number | undefined
  readonly email: string
  readonly password: string
  readonly close: () => Promise<void>
}

const post = async (url: string, body: unknown, cookie?: string) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, any>, headers: response.headers }
}

/**
 * Starts the real HTTP server (packages/server's TestServer: loopback port, fresh
 * embedded or real Postgres, sandbox upstream), signs up a developer through the
 * dashboard, creates an API key with every scope and connects a sandbox chat channel.
 */
export const startRealServer = async (): Promise<RealServer> => {
  const mod = (await import(/* @vite-ignore */ serverSupport)) as {
    TestServer: (config?: Record<string, string>) => Layer.Layer<never, unknown, never>
    baseUrl: Effect.Effect<string, never, never>
  }
  const runtime = ManagedRuntime.make(mod.TestServer({ UNSAFE_ALLOW_LOCAL_TARGETS: "1" }) as Layer.Layer<any, unknown, never>)
  const baseUrl = await runtime.runPromise(mod.baseUrl as Effect.Effect<string, never, any>)
  const email = `sdk-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`
  const password = `pw-${Math.random().toString(36).slice(2)}-Secret!`
  const signup = await post(`${baseUrl}/platform/dashboard/signup`, { email, password, name: "sdk e2e" })
  if (signup.status !== 201) throw new Error(`signup answered ${signup.status}: ${JSON.stringify(signup.body)}`)
  const cookie = signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
  const key = await post(`${baseUrl}/platform/dashboard/api-keys`, { name: "e2e" }, cookie)
  if (key.status !== 201) throw new Error(`api key answered ${key.status}: ${JSON.stringify(key.body)}`)
  const phone = String(100000000000000 + Math.floor(Math.random() * 1e12))
  const channel = await post(`${baseUrl}/platform/dashboard/channels/connect/chat`, { code: "sandbox-code", phone_number_id: phone, waba_id: `WABA${phone}` }, cookie)
  return {
    baseUrl,
    apiKey: key.body.key as string,
    channelId: channel.status === 201 ? (channel.body.channel_id as number) : undefined,
    email,
    password,
    close: () => runtime.dispose()
  }
}
