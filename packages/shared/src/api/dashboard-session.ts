import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams } from "../common.js"
import { EmailTaken, Login, Me, Signup } from "../account.js"
import { RateLimited, Unauthorized, wire } from "../errors.js"
import { InputGuard, SameOrigin } from "./security.js"

/** Signup, login and logout: the only dashboard routes without a session; they set or clear the cookie. */
export class DashboardSessionGroup extends HttpApiGroup.make("dashboardSession")
  .add(
    HttpApiEndpoint.post("signup", "/platform/dashboard/signup")
      .setUrlParams(noQueryParams)
      .setPayload(Signup)
      .addSuccess(Me, { status: 201 })
      .addError(wire(EmailTaken))
      .annotate(OpenApi.Summary, "Create a user and account; sets the session cookie")
  )
  .add(
    HttpApiEndpoint.post("login", "/platform/dashboard/login")
      .setUrlParams(noQueryParams)
      .setPayload(Login)
      .addSuccess(Me)
      .addError(wire(Unauthorized))
      .addError(wire(RateLimited))
      .annotate(OpenApi.Summary, "Sign in; sets the session cookie")
      .annotate(OpenApi.Description, "Unknown email and wrong password answer the same 401. Rate limited per IP and email.")
  )
  .add(
    HttpApiEndpoint.post("logout", "/platform/dashboard/logout")
      .setUrlParams(noQueryParams)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Revoke the session and clear the cookie")
  )
  .middleware(InputGuard)
  .middleware(SameOrigin)
  .annotate(OpenApi.Title, "Dashboard: session")
  .annotate(OpenApi.Description, "Sign up, sign in and out. The dashboard routes use the session cookie only; an API key there is 401.")
{}
