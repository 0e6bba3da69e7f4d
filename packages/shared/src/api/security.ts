import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Context, Schema } from "effect"
import { CsrfRejected } from "../account.js"
import type { Role } from "../account.js"
import { MissingScope, RateLimited, Unauthorized, ValidationFailed, wire } from "../errors.js"
import { SESSION_COOKIE } from "../limits.js"
import type { Scope } from "../scopes.js"

/**
 * The scope a `/platform/v1` route requires (SPEC §5.3). Annotate the group (default
 * for its endpoints) or the endpoint (overrides). With `CookieAllowed` this is the one
 * route → {scope, cookie} table: the server's middleware reads it, and the route-table
 * test walks `HttpApi.reflect(PlatformApi)` so a v1 route without it fails the suite.
 */
export class RequiredScope extends Context.Tag("@platform/shared/RequiredScope")<RequiredScope, Scope>() {}

/** Whether the dashboard cookie is accepted instead of a key on this v1 route (SPEC §5.4). */
export class CookieAllowed extends Context.Tag("@platform/shared/CookieAllowed")<CookieAllowed, boolean>() {}

/** Who is calling a v1 route: a key (with its scopes) or a dashboard session (every scope). */
export interface Principal {
  readonly account_id: number
  readonly api_key_id: number | null
  readonly user_id: number | null
  readonly scopes: ReadonlyArray<Scope>
}

export class CurrentPrincipal extends Context.Tag("@platform/shared/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/**
 * Security of every `/platform/v1` route: `X-API-Key` (or, where `CookieAllowed`, the
 * dashboard cookie), then the per-key rate limit, then the route's `RequiredScope`.
 */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("@platform/shared/ApiKeyAuth", {
  failure: Schema.Union(wire(Unauthorized), wire(RateLimited), wire(MissingScope), wire(CsrfRejected)),
  provides: CurrentPrincipal,
  security: {
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "The plaintext API key created in the dashboard.")
    )
  }
}) {}

/** A signed-in dashboard user, their account and role. */
export interface DashboardSession {
  readonly session_id: string
  readonly user_id: number
  readonly account_id: number
  readonly role: Role
}

export class CurrentSession extends Context.Tag("@platform/shared/CurrentSession")<CurrentSession, DashboardSession>() {}

/** Security of `/platform/dashboard/*`: the `access_token_dev` cookie only (an API key there is 401). */
export class DashboardAuth extends HttpApiMiddleware.Tag<DashboardAuth>()("@platform/shared/DashboardAuth", {
  failure: Schema.Union(wire(Unauthorized), wire(CsrfRejected)),
  provides: CurrentSession,
  security: {
    cookie: HttpApiSecurity.apiKey({ key: SESSION_COOKIE, in: "cookie" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Signed dashboard session, set by signup and login.")
    )
  }
}) {}

/** Same-origin check for the dashboard's unauthenticated mutations (signup, login, logout). */
export class SameOrigin extends HttpApiMiddleware.Tag<SameOrigin>()("@platform/shared/SameOrigin", {
  failure: wire(CsrfRejected)
}) {}

/**
 * Refuses request input holding the character U+0000 (which no Postgres text can
 * store) with SPEC §7's 422, one issue per value, before the handler runs. Put
 * before a group's authentication middleware: that one then runs first (401
 * and 403 come before 422).
 */
export class InputGuard extends HttpApiMiddleware.Tag<InputGuard>()("@platform/shared/InputGuard", {
  failure: wire(ValidationFailed)
}) {}
