import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { CurrentPrincipal, SESSION_COOKIE } from "@platform/shared"
import { Effect, Option } from "effect"
import { ApiKeys, type KeyRecord } from "./api-keys.js"
import { Sessions } from "./sessions.js"
import { currentRouteSecurity } from "./route-security.js"

/** Whether a key record authenticates at `nowMs`: known, active and not expired (SPEC §5.1). */
export const keyAuthenticates = (record: KeyRecord | null, nowMs: number): record is KeyRecord =>
  record !== null && record.is_active && (record.expires_at === null || record.expires_at > nowMs)

/**
 * For the request being served, a check of whether the credential a long-lived
 * response was opened with (the event stream) still authenticates as its principal
 * with the route's scope (from the shared route table, as ApiKeyAuth admitted it):
 * the same key, still active and unexpired, or the same dashboard session, neither
 * logged out nor expired nor removed from the account. Keys go through ApiKeys'
 * cache (5 s; a PATCH or DELETE in this process clears it at once), sessions are
 * read again.
 */
export const makeCredentialCheck = Effect.gen(function*() {
  const keys = yield* ApiKeys
  const sessions = yield* Sessions
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const principal = yield* CurrentPrincipal
    const security = yield* currentRouteSecurity
    if (security?.scope == null) return yield* Effect.dieMessage(`route ${request.method} ${request.url} has no RequiredScope`)
    const scope = security.scope
    return (nowMs: number) =>
      Effect.gen(function*() {
        const key = request.headers["x-api-key"]
        if (key !== undefined && key.length > 0) {
          const record = yield* keys.lookup(key)
          return keyAuthenticates(record, nowMs) && record.id === principal.api_key_id &&
            record.scopes.includes(scope)
        }
        const cookie = request.cookies[SESSION_COOKIE]
        if (cookie === undefined || cookie.length === 0 || principal.user_id === null) return false
        const session = yield* sessions.resolve(cookie)
        return Option.isSome(session) && session.value.user_id === principal.user_id &&
          session.value.account_id === principal.account_id
      })
  })
})
