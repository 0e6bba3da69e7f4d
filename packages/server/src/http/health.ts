import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import { SqlClient } from "@effect/sql"
import { PlatformApi } from "@platform/shared"
import { Duration, Effect } from "effect"
import { Draining } from "./draining.js"
import { Readiness } from "./readiness.js"

/*
 * How long readiness waits for `select 1`. An unreachable database usually refuses
 * at once, but a black-holed one leaves the connect waiting up to the pool's
 * connectionTimeoutMillis (10 s), and a probe must answer well before its own timeout.
 */
const READY_TIMEOUT = Duration.seconds(2)

export const HealthLive = HttpApiBuilder.group(PlatformApi, "health", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const readiness = yield* Readiness
    const draining = yield* Draining
    const unavailable = Effect.fail(new HttpApiError.ServiceUnavailable())
    // The database check is logged when it changes, not at every probe: probes every
    // second through an hour's outage would be 3,600 lines.
    let failing = false
    const databaseAnswers = sql`select 1`.pipe(
      // On timeout the statement is cancelled in the background (a cancel needs a
      // connection too, and may wait 5 s for one): the probe answers at once.
      Effect.disconnect,
      Effect.timeout(READY_TIMEOUT),
      Effect.matchEffect({
        onSuccess: () => {
          const recovered = failing
          failing = false
          return Effect.as(recovered ? Effect.logInfo("readiness check passes again") : Effect.void, {
            status: "ready" as const
          })
        },
        onFailure: (cause) => {
          const first = !failing
          failing = true
          return Effect.zipRight(
            first ? Effect.logWarning("readiness check failed; /readyz answers 503 until it passes", String(cause)) : Effect.void,
            unavailable
          )
        }
      })
    )
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        Effect.gen(function*() {
          // Start-up work (the first-run demo) is expected to take a moment: waited for, not logged.
          const started = yield* readiness.ready.pipe(Effect.timeout("2 seconds"), Effect.option)
          // A stopping server takes no new work: load balancers move on before its connections close.
          if (started._tag === "None" || (yield* draining.isDraining)) return yield* unavailable
          return yield* databaseAnswers
        }))
  }))
