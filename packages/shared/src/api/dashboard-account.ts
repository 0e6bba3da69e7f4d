import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams } from "../common.js"
import { Account, AccountPatch, Billing, Conflict, InsufficientRole, Me, PlanChange } from "../account.js"
import { wire } from "../errors.js"
import { DashboardAuth, InputGuard } from "./security.js"

/** The signed-in user, their account and billing (plan, usage, limits). */
export class DashboardAccountGroup extends HttpApiGroup.make("dashboardAccount")
  .add(HttpApiEndpoint.get("me", "/platform/dashboard/me").setUrlParams(noQueryParams).addSuccess(Me).annotate(OpenApi.Summary, "The session's user, account, role, plan and usage"))
  .add(
    HttpApiEndpoint.get("get", "/platform/dashboard/account")
      .setUrlParams(noQueryParams)
      .addSuccess(Account)
      .annotate(OpenApi.Summary, "The account: name and plan")
  )
  .add(
    HttpApiEndpoint.patch("update", "/platform/dashboard/account")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Rename the account (owner or admin)")
      .setPayload(AccountPatch)
      .addSuccess(Account)
      .addError(wire(InsufficientRole))
  )
  .add(
    HttpApiEndpoint.get("billing", "/platform/dashboard/billing")
      .setUrlParams(noQueryParams)
      .addSuccess(Billing)
      .annotate(OpenApi.Summary, "The plan, this month's usage and the plan's limits")
  )
  .add(
    HttpApiEndpoint.post("changePlan", "/platform/dashboard/billing/plan")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Change the plan (owner only)")
      .setPayload(PlanChange)
      .addSuccess(Billing)
      .addError(wire(InsufficientRole))
      .addError(wire(Conflict))
      .annotate(OpenApi.Description, "Owner only. A downgrade below the number of connected channels is 409.")
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: account")
  .annotate(OpenApi.Description, "The signed-in user, their account, plan and usage.")
{}
