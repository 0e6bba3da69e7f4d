import { HttpApiBuilder, HttpApiError } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Draining } from "./draining.js"
import { Readiness } from "./readiness.js"

export const HealthLive = HttpApiBuilder.group(PlatformApi, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const readiness = yield* Readiness
    const draining = yield* Draining
    const unavailable = Effect.fail(new HttpApiError.ServiceUnavailable())
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        Effect.gen(function*() {
          // Start-up work (the first-run demo) is expected to take a moment: waited for, not logged.
          const started = yield* readiness.ready.pipe(Effect.timeout("2 seconds"), Effect.option)
          // A stopping server takes no new work: load balancers move on before its connections close.
          if (started._tag === "None" || (yield* draining.isDraining)) return yield* unavailable
          return yield* sql`select 1`.pipe(
            Effect.timeout("2 seconds"),
            Effect.as({ status: "ready" as const }),
            Effect.catchAll((cause) =>
              Effect.zipRight(Effect.logWarning("readiness check failed", String(cause)), unavailable)
            )
          )
        }))
  }))
