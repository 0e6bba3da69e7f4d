import { HttpApiEndpoint, HttpApiError, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

/** Liveness and readiness probes for load balancers and orchestrators. */
export class HealthGroup extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .annotate(OpenApi.Summary, "The process is up")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ready") }))
      .addError(HttpApiError.ServiceUnavailable)
      .annotate(OpenApi.Summary, "The database answers")
  )
  .annotate(OpenApi.Exclude, false)
  .annotate(OpenApi.Title, "Health")
  .annotate(OpenApi.Description, "Liveness and readiness probes for load balancers and orchestrators; no credential.")
{}
