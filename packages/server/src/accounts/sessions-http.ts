import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { PlatformApi, RateLimited, SESSION_COOKIE } from "@platform/shared"
import { Effect, Option } from "effect"
import { clearSessionCookie, setSessionCookie } from "../auth/dashboard-auth.js"
import { RateLimiter } from "../auth/rate-limiter.js"
import { AppConfig } from "../config.js"
import { Accounts } from "./accounts.js"
import { Sessions } from "../auth/sessions.js"
import { responseHeaders } from "../http/response-headers.js"
import { countRateLimited } from "../telemetry/metrics.js"

/** Login attempts per (client address, email) and minute, successful or not. */
const LOGIN_ATTEMPTS_PER_MINUTE = 10

export const DashboardSessionLive = HttpApiBuilder.group(PlatformApi, "dashboardSession", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const sessions = yield* Sessions
    const limiter = yield* RateLimiter
    const config = yield* AppConfig

    const startSession = (userId: number, accountId: number) =>
      Effect.gen(function*() {
        const { token } = yield* sessions.create(userId, accountId)
        yield* setSessionCookie(token, config.production)
        return yield* accounts.me(userId, accountId)
      })

    return handlers
      .handle("signup", ({ payload }) =>
        Effect.flatMap(accounts.signup(payload), ({ userId, accountId }) =>
          startSession(userId, accountId).pipe(Effect.orDie)))
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const address = Option.getOrElse(request.remoteAddress, () => "unknown")
          const decision = yield* limiter.consume(
            `dashboard:login:${address}:${payload.email.trim().toLowerCase()}`,
            LOGIN_ATTEMPTS_PER_MINUTE
          )
          if (!decision.allowed) {
            responseHeaders(request)["retry-after"] = String(decision.retryAfter)
            countRateLimited("login")
            return yield* new RateLimited()
          }
          const { userId, accountId } = yield* accounts.login(payload.email, payload.password, payload.account_id)
          return yield* startSession(userId, accountId)
        }))
      .handle("logout", () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const token = request.cookies[SESSION_COOKIE]
          if (token !== undefined && token.length > 0) {
            const session = yield* sessions.resolve(token)
            if (Option.isSome(session)) yield* sessions.revoke(session.value.session_id)
          }
          yield* clearSessionCookie(config.production)
        }))
  }))
