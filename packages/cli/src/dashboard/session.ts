import { AuthenticationError, NotFoundError, Platform } from "@platform/sdk"
import { CliError, type Context, ExitCode, type StoredSession } from "../context.js"

type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE"

const LOGIN_HINT = "run `platform login --email <your e-mail>`"

/** The error of a command that needs a dashboard session the profile does not hold (or holds expired). */
export const needsLogin = (why: string): CliError => new CliError(`${why}: ${LOGIN_HINT} (the dashboard's e-mail and password).`, ExitCode.auth)

/**
 * The dashboard routes take the session cookie, never an API key (the header is removed); going through the SDK's core
 * still gives them its timeout, its connection errors and its typed HTTP errors, reported like any command's. They carry
 * no Origin header: the server's CSRF rule lets a request without one through, as it is not a browser's.
 */
const core = async (ctx: Context): Promise<Platform> =>
  new Platform({ apiKey: "dashboard-session", baseUrl: (await ctx.baseUrl()).value, fetch: ctx.io.fetch, maxRetries: 0 })

const signal = (ctx: Context) => (ctx.signal ? { signal: ctx.signal } : {})

/** The `name=value` pairs of the response's cookies, and when the session one expires. */
const sessionCookie = (response: Response): { cookie: string; expires_at?: string } | undefined => {
  const setCookies = response.headers.getSetCookie()
  if (setCookies.length === 0) return undefined
  const cookie = setCookies.map((c) => c.split(";")[0]!).join("; ")
  const attributes = setCookies[0]!.split(";").slice(1).map((a) => a.trim())
  const maxAge = attributes.find((a) => /^max-age=/i.test(a))
  const expires = attributes.find((a) => /^expires=/i.test(a))
  const at = maxAge !== undefined ? Date.now() + Number(maxAge.split("=")[1]) * 1000 : expires !== undefined ? Date.parse(expires.slice(8)) : Number.NaN
  return Number.isFinite(at) ? { cookie, expires_at: new Date(at).toISOString() } : { cookie }
}

/** Signs in to the dashboard; returns the session to store and the `me` body (user, account, plan, usage). */
export const signIn = async (ctx: Context, email: string, password: string): Promise<{ session: StoredSession; me: Me }> => {
  const client = await core(ctx)
  const login = await client
    .requestWithResponse<Me>({ method: "POST", path: "/platform/dashboard/login", body: { email, password } }, { headers: { "x-api-key": null }, ...signal(ctx) })
    .catch((error: unknown) => {
      if (error instanceof AuthenticationError) throw new CliError("Dashboard login failed: wrong e-mail or password.", ExitCode.auth)
      throw error
    })
  const cookie = sessionCookie(login.response)
  if (cookie === undefined) throw new CliError("Dashboard login answered without a session cookie.")
  return { session: { ...cookie, email }, me: login.data }
}

/** The signed-in user as GET /platform/dashboard/me (and login) describe them. */
export interface Me {
  readonly user: { readonly id: number; readonly email: string; readonly name: string }
  readonly account: { readonly id: number; readonly name: string; readonly plan: string }
  readonly role: string
  readonly plan: string
  readonly usage: Record<string, unknown>
}

/** The profile's dashboard session, or the "run platform login --email" error when it has none or it has expired. */
export const storedSession = async (ctx: Context): Promise<StoredSession> => {
  const session = (await ctx.profile()).session
  if (session === undefined) throw needsLogin(`This command uses the dashboard, and profile ${ctx.profileName} has no dashboard session`)
  if (session.expires_at !== undefined && Date.parse(session.expires_at) <= Date.now()) {
    throw needsLogin(`The dashboard session of ${session.email} expired at ${session.expires_at}`)
  }
  return session
}

/** Calls a dashboard route with the profile's session; a refused session is the "run platform login --email" error. */
export const dashboard = async <T>(ctx: Context, method: HttpMethod, path: string, body?: unknown): Promise<T> => {
  const session = await storedSession(ctx)
  const client = await core(ctx)
  return client
    .request<T>({ method, path, ...(body === undefined ? {} : { body }) }, { headers: { "x-api-key": null, cookie: session.cookie }, ...signal(ctx) })
    .catch((error: unknown) => {
      if (error instanceof AuthenticationError) throw needsLogin(`The dashboard refused the session of ${session.email} (expired or signed out)`)
      throw error
    })
}

/** Whether the server runs the sandbox upstream: its sandbox-only route answers "channel not found" for a channel no account has. */
export const isSandbox = async (ctx: Context): Promise<boolean> => {
  try {
    await dashboard(ctx, "POST", "/platform/dashboard/sandbox/inbound", { channel_id: 2147483647, from: "15550000000", text: "probe" })
    return true
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error
    return !/sandbox upstream is not enabled/.test(JSON.stringify(error.body))
  }
}
