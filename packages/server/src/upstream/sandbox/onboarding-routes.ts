/**
 * The simulator's onboarding (Embedded Signup and Facebook Login): the OAuth code
 * exchange, the user's Pages and Instagram accounts, registering a phone number and
 * subscribing the app to a WABA's webhooks.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { createHash, randomBytes } from "node:crypto"
import { Effect, Redacted } from "effect"
import { graphError, invalidParameter, json, readForm, readJson, unsupportedMethod } from "./graph-replies.js"
import { SANDBOX_EXPIRED_TOKEN, SANDBOX_MAGIC_CODES } from "./magic.js"
import type { SandboxState } from "./state.js"

type State = SandboxState

/** `oauth/access_token`: trades a login's code for a user token; the magic codes answer Meta's refusals. */
export const exchangeCode = (state: State, method: string, url: URL, req: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const params = method === "POST" ? yield* readForm(req) : Object.fromEntries(url.searchParams)
    if (params["client_id"] !== state.config.metaAppId) {
      return graphError({ status: 400, code: 101, message: "Error validating application. Invalid application ID." })
    }
    if (params["client_secret"] !== Redacted.value(state.config.metaAppSecret)) {
      return graphError({ status: 400, code: 1, message: "Error validating client secret." })
    }
    if (!params["code"]) return graphError({ status: 400, code: 100, message: "Missing code parameter." })
    if (params["code"] === SANDBOX_MAGIC_CODES.invalid) {
      return graphError({ status: 400, code: 100, subcode: 36007, message: "Invalid verification code format." })
    }
    if (params["code"] === SANDBOX_MAGIC_CODES.expired) return json({ access_token: SANDBOX_EXPIRED_TOKEN, token_type: "bearer" })
    return json({ access_token: `EAAG${randomBytes(48).toString("base64url").replace(/[-_]/g, "x")}`, token_type: "bearer" })
  })

/** `me/accounts`: the Page (and its Instagram account) a user token manages. */
export const userAccounts = (token: string) => {
  // Each user token (each login) has its own Page and Instagram account, stable for that token.
  const seed = createHash("sha256").update(token).digest()
  const digits = (from: number, n: number) => Array.from(seed.subarray(from, from + n), (b) => String(b % 10)).join("")
  return json({
    data: [{
      id: `1000${digits(0, 11)}`,
      name: "Sandbox Page",
      access_token: `EAAG${randomBytes(32).toString("hex")}`,
      instagram_business_account: { id: `178414${digits(11, 11)}`, username: "sandbox.business" }
    }],
    paging: { cursors: { before: "MA", after: "MA" } }
  })
}

export const register = (state: State, method: string, pnid: string, req: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (method !== "POST") return unsupportedMethod(method)
    const body = yield* readJson(req)
    if (body["messaging_product"] !== "whatsapp") return invalidParameter("messaging_product is required")
    if (typeof body["pin"] !== "string" || !/^\d{6}$/.test(body["pin"])) return invalidParameter("pin must be 6 digits")
    state.registered.add(pnid)
    state.pins.set(pnid, body["pin"])
    return json({ success: true })
  })

export const subscribedApps = (state: State, method: string, waba: string) => {
  if (method === "POST") {
    state.subscribedWabas.add(waba)
    return json({ success: true })
  }
  if (method === "GET") {
    return json({ data: state.subscribedWabas.has(waba) ? [{ whatsapp_business_api_data: { id: state.config.metaAppId, name: "Sandbox App" } }] : [] })
  }
  return unsupportedMethod(method)
}
