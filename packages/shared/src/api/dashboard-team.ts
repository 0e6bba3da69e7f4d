import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams } from "../common.js"
import { Schema } from "effect"
import { Conflict, EmailTaken, InsufficientRole, TeamAdd, TeamMember } from "../account.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { DashboardAuth, InputGuard } from "./security.js"

/** Members of the account and their roles. */
export class DashboardTeamGroup extends HttpApiGroup.make("dashboardTeam")
  .add(
    HttpApiEndpoint.get("list", "/platform/dashboard/team")
      .setUrlParams(noQueryParams)
      .addSuccess(Schema.Array(TeamMember))
      .annotate(OpenApi.Summary, "List the account's members and their roles")
  )
  .add(
    HttpApiEndpoint.post("add", "/platform/dashboard/team")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Add a member with a role (owner or admin)")
      .setPayload(TeamAdd)
      .addSuccess(TeamMember, { status: 201 })
      .addError(wire(InsufficientRole))
      .addError(wire(EmailTaken))
      .addError(wire(ValidationFailed))
  )
  .add(
    HttpApiEndpoint.del("remove", "/platform/dashboard/team/:user_id")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Remove a member (owner or admin; a member may remove themselves)")
      .setPath(Schema.Struct({ user_id: PathId("The member's user id") }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(wire(InsufficientRole))
      .addError(wire(NotFound))
      .addError(wire(Conflict))
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: team")
  .annotate(OpenApi.Description, "The account's members and their roles (owner, admin, developer).")
{}
