import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
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
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config.js"
import { countRateLimited } from "../telemetry/metrics.js"
import { ApiKeys, type KeyRecord } from "./api-keys.js"
import { Sessions } from "./sessions.js"
import { responseHeaders } from "../http/response-headers.js"
import { keyAuthenticates } from "./credential-check.js"
import { isSameOriginRequest } from "./csrf.js"
import { type RateDecision, RateLimiter } from "./rate-limiter.js"
import { routeSecurityOf } from "./route-security.js"

const setRateHeaders = (request: HttpServerRequest.HttpServerRequest, d: RateDecision) => {
  const headers = responseHeaders(request)
  headers["x-ratelimit-limit"] = String(d.limit)
  headers["x-ratelimit-remaining"] = String(d.remaining)
  headers["x-ratelimit-reset"] = String(d.reset)
  if (!d.allowed) headers["retry-after"] = String(d.retryAfter)
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
    const unauthorized = new Unauthorized()

    // The hot path of every keyed request: plain flatMaps rather than generators, a
    // cached key costs no Effect of its own, and nothing but the lookup can touch the
    // database (and only on a cache miss).
    const admit = (
      request: HttpServerRequest.HttpServerRequest,
      record: KeyRecord | null,
      scope: Scope
    ): Effect.Effect<Principal, Unauthorized | RateLimited | MissingScope> => {
      if (!keyAuthenticates(record, Date.now())) return Effect.fail(unauthorized)
      return Effect.flatMap(limiter.consume(record.bucket, record.rate_limit_per_minute), (decision): Effect.Effect<
        Principal,
        RateLimited | MissingScope
      > => {
        setRateHeaders(request, decision)
        if (!decision.allowed) {
          countRateLimited("api_key")
          return Effect.fail(new RateLimited())
        }
        keys.touch(record.id)
        return record.scopes.includes(scope)
          ? Effect.succeed(record.principal)
          : Effect.fail(new MissingScope({ required_scope: scope }))
      })
    }

    const viaKey = (request: HttpServerRequest.HttpServerRequest, plaintext: string, scope: Scope) => {
      const cached = keys.lookupCached(plaintext)
      return cached !== undefined
        ? admit(request, cached, scope)
        : Effect.flatMap(keys.lookup(plaintext), (record) => admit(request, record, scope))
    }

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
        Effect.contextWithEffect((context: Context.Context<HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest>): Effect.Effect<
          Principal,
          Unauthorized | RateLimited | MissingScope | CsrfRejected
        > => {
          const { route } = Context.get(context, HttpRouter.RouteContext)
          const entry = routeSecurityOf(route)
          if (entry === undefined || entry.scope === null) {
            return Effect.die(new Error(`route ${route.method} ${route.path} has no RequiredScope`))
          }
          const request = Context.get(context, HttpServerRequest.HttpServerRequest)
          const plaintext = Redacted.value(credential)
          if (plaintext.length > 0) return viaKey(request, plaintext, entry.scope)
          if (!entry.cookie) return Effect.fail(unauthorized)
          const cookie = request.cookies[SESSION_COOKIE]
          return cookie !== undefined && cookie.length > 0 ? viaCookie(request, cookie) : Effect.fail(unauthorized)
        })
    }
  })
)
