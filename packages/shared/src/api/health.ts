import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"

/**
 * The one 4xx a probe can get: Node's listener refuses a request whose headers pass
 * its 16 KB limit before any route runs (as it does for every route), with no body.
 */
const withHeaderLimit = (op: Record<string, any>) => ({
  ...op,
  responses: {
    ...op.responses,
    "431": { description: "Request Header Fields Too Large: the request's headers pass Node's 16 KB limit (no body)" }
  }
})

/** Liveness and readiness probes for load balancers and orchestrators. */
export class HealthGroup extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .annotate(OpenApi.Summary, "The process is up")
      .annotate(OpenApi.Transform, withHeaderLimit)
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ready") }))
      .addError(HttpApiError.ServiceUnavailable)
      .annotate(OpenApi.Summary, "The database answers")
      .annotate(OpenApi.Transform, withHeaderLimit)
  )
  .annotate(OpenApi.Exclude, false)
  .annotate(OpenApi.Title, "Health")
  .annotate(OpenApi.Description, "Liveness and readiness probes for load balancers and orchestrators; no credential.")
{}
