import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CsrfRejected, DashboardAuth, SameOrigin, SESSION_COOKIE, SESSION_TTL_DAYS, Unauthorized } from "@platform/shared"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config.js"
import { Sessions } from "./sessions.js"
import { isSameOriginRequest } from "./csrf.js"

/** DashboardAuth: the signed session cookie only (an API key is not looked at), then the CSRF check. */
export const DashboardAuthLive = Layer.effect(
  DashboardAuth,
  Effect.gen(function*() {
    const sessions = yield* Sessions
    const config = yield* AppConfig
    return {
      cookie: (token) =>
        Effect.gen(function*() {
          const value = Redacted.value(token)
          if (value.length === 0) return yield* new Unauthorized({ message: "not signed in" })
          const session = yield* sessions.resolve(value)
          if (Option.isNone(session)) return yield* new Unauthorized({ message: "session invalid or expired" })
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!isSameOriginRequest(request, config.publicUrl)) return yield* new CsrfRejected()
          return session.value
        })
    }
  })
)

/** SameOrigin: the CSRF check for signup, login and logout (login CSRF would sign a victim into our account). */
export const SameOriginLive = Layer.effect(
  SameOrigin,
  Effect.map(AppConfig, (config) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      isSameOriginRequest(request, config.publicUrl) ? Effect.void : Effect.fail(new CsrfRejected())))
)

/** Sets the session cookie: HttpOnly, SameSite=Lax, Secure in production, 7 days. */
export const setSessionCookie = (token: string, production: boolean) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: "lax",
      secure: production,
      path: "/",
      maxAge: Duration.days(SESSION_TTL_DAYS)
    }))
  )

export const clearSessionCookie = (production: boolean) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, "", {
      httpOnly: true,
      sameSite: "lax",
      secure: production,
      path: "/",
      maxAge: Duration.zero
    }))
  )

