import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  ApiKeyAuth,
  CsrfRejected,
  MissingScope,
  type Principal,
  RateLimited,
  type Scope,
  Scopes,
  SESSION_COOKIE,
  Unauthorized
} from "@platform/shared"
import { Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config.js"
import { ApiKeys } from "../domain/api-keys.js"
import { Sessions } from "../domain/sessions.js"
import { isSameOriginRequest } from "./csrf.js"
import { type RateDecision, RateLimiter } from "./rate-limiter.js"
import { routeKey, routeTable } from "./route-table.js"

const rateHeaders = (d: RateDecision): Record<string, string> => {
  const headers: Record<string, string> = {
    "x-ratelimit-limit": String(d.limit),
    "x-ratelimit-remaining": String(d.remaining),
    "x-ratelimit-reset": String(d.reset)
  }
  if (!d.allowed) headers["retry-after"] = String(d.retryAfter)
  return headers
}

/**
 * ApiKeyAuth: 401 (missing, unknown, inactive, expired key) → per-key sliding-window
 * limit (429; neither a 401 nor a 429 consumes budget) → last_used_at → 403 when the
 * key lacks the route's scope. The dashboard cookie stands in for a key only where the
 * route table allows it, and then passes the CSRF check. X-RateLimit-* go on every
 * response to a key, the 429 adds Retry-After.
 */
export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const limiter = yield* RateLimiter
    const sessions = yield* Sessions
    const config = yield* AppConfig
    const table = new Map(routeTable().map((r) => [routeKey(r.method, r.path), r]))
    const unauthorized = new Unauthorized()

    // The hot path of every keyed request: plain flatMaps rather than generators, and
    // nothing but the lookup can touch the database (and only on a cache miss).
    const viaKey = (plaintext: string, scope: Scope): Effect.Effect<Principal, Unauthorized | RateLimited | MissingScope> =>
      Effect.flatMap(keys.lookup(plaintext), (record): Effect.Effect<Principal, Unauthorized | RateLimited | MissingScope> => {
        if (record === null || !record.is_active || (record.expires_at !== null && record.expires_at <= Date.now())) {
          return Effect.fail(unauthorized)
        }
        return Effect.flatMap(limiter.consume(record.bucket, record.rate_limit_per_minute), (decision) => {
          const headers = rateHeaders(decision)
          const result: Effect.Effect<Principal, RateLimited | MissingScope> = !decision.allowed
            ? Effect.fail(new RateLimited())
            : Effect.suspend(() => {
              keys.touch(record.id)
              return record.scopes.includes(scope)
                ? Effect.succeed(record.principal)
                : Effect.fail(new MissingScope({ required_scope: scope }))
            })
          return Effect.zipRight(
            HttpApp.appendPreResponseHandler((_request, response) =>
              Effect.succeed(HttpServerResponse.setHeaders(response, headers))
            ),
            result
          )
        })
      })

    const viaCookie = (request: HttpServerRequest.HttpServerRequest, token: string) =>
      Effect.gen(function*() {
        const session = yield* sessions.resolve(token)
        if (Option.isNone(session)) return yield* Effect.fail(unauthorized)
        if (!isSameOriginRequest(request, config.publicUrl)) return yield* Effect.fail(new CsrfRejected())
        return {
          account_id: session.value.account_id,
          api_key_id: null,
          user_id: session.value.user_id,
          scopes: Scopes
        } satisfies Principal
      })

    return {
      apiKey: (credential) =>
        Effect.flatMap(HttpRouter.RouteContext, ({ route }): Effect.Effect<
          Principal,
          Unauthorized | RateLimited | MissingScope | CsrfRejected,
          HttpServerRequest.HttpServerRequest
        > => {
          const entry = table.get(routeKey(route.method, route.path))
          if (entry === undefined || entry.scope === null) {
            return Effect.die(new Error(`route ${route.method} ${route.path} has no RequiredScope`))
          }
          const plaintext = Redacted.value(credential)
          if (plaintext.length > 0) return viaKey(plaintext, entry.scope)
          if (!entry.cookie) return Effect.fail(unauthorized)
          return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            const cookie = request.cookies[SESSION_COOKIE]
            return cookie !== undefined && cookie.length > 0 ? viaCookie(request, cookie) : Effect.fail(unauthorized)
          })
        })
    }
  })
)
