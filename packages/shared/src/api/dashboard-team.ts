import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, EmailTaken, InsufficientRole, TeamAdd, TeamMember } from "../account.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { DashboardAuth, InputGuard } from "./security.js"

/** Members of the account and their roles. */
export class DashboardTeamGroup extends HttpApiGroup.make("dashboardTeam")
  .add(HttpApiEndpoint.get("list", "/platform/dashboard/team").addSuccess(Schema.Array(TeamMember)))
  .add(
    HttpApiEndpoint.post("add", "/platform/dashboard/team")
      .setPayload(TeamAdd)
      .addSuccess(TeamMember, { status: 201 })
      .addError(wire(InsufficientRole))
      .addError(wire(EmailTaken))
      .addError(wire(ValidationFailed))
  )
  .add(
    HttpApiEndpoint.del("remove", "/platform/dashboard/team/:user_id")
      .setPath(Schema.Struct({ user_id: Schema.NumberFromString.pipe(Schema.int()) }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(wire(InsufficientRole))
      .addError(wire(NotFound))
      .addError(wire(Conflict))
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
{}
