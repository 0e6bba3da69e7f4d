import { HttpApiBuilder, HttpApiError } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { PlatformApi } from "@platform/shared"
import { Effect } from "effect"

export const HealthLive = HttpApiBuilder.group(PlatformApi, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        sql`select 1`.pipe(
          Effect.timeout("2 seconds"),
          Effect.as({ status: "ready" as const }),
          Effect.catchAll((cause) =>
            Effect.zipRight(
              Effect.logWarning("readiness check failed", String(cause)),
              Effect.fail(new HttpApiError.ServiceUnavailable())
            )
          )
        ))
  }))
