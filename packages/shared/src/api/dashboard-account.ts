import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Account, AccountPatch, Billing, Conflict, InsufficientRole, Me, PlanChange } from "../account.js"
import { wire } from "../errors.js"
import { DashboardAuth, InputGuard } from "./security.js"

/** The signed-in user, their account and billing (plan, usage, limits). */
export class DashboardAccountGroup extends HttpApiGroup.make("dashboardAccount")
  .add(HttpApiEndpoint.get("me", "/platform/dashboard/me").addSuccess(Me).annotate(OpenApi.Summary, "The session's user, account, role, plan and usage"))
  .add(HttpApiEndpoint.get("get", "/platform/dashboard/account").addSuccess(Account))
  .add(
    HttpApiEndpoint.patch("update", "/platform/dashboard/account")
      .setPayload(AccountPatch)
      .addSuccess(Account)
      .addError(wire(InsufficientRole))
  )
  .add(HttpApiEndpoint.get("billing", "/platform/dashboard/billing").addSuccess(Billing))
  .add(
    HttpApiEndpoint.post("changePlan", "/platform/dashboard/billing/plan")
      .setPayload(PlanChange)
      .addSuccess(Billing)
      .addError(wire(InsufficientRole))
      .addError(wire(Conflict))
      .annotate(OpenApi.Description, "Owner only. A downgrade below the number of connected channels is 409.")
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
{}
