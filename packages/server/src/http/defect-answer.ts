import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailable, wire } from "@platform/shared"
import { Cause, Effect, Schema } from "effect"
import { connectionFaultMessage, isConnectionFault } from "../db/connection-fault.js"
import { requestLost } from "./lost-requests.js"

/** What a request that died answers: status, JSON body and headers of its own. */
export interface DefectAnswer {
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
}

/** The body of a 500: the request id and nothing of the internals. */
export const internalErrorBody = (requestId: string) => ({
  detail: { code: "internal_error", message: "Internal server error", request_id: requestId }
})

/**
 * The body of a 503 for a database that could not be reached, as the contract declares
 * it on every route: the request id and nothing of the internals. A PostgreSQL restart
 * or a managed failover takes a few seconds (DATABASE_RETRY_AFTER_SECONDS).
 */
export const databaseUnavailableBody = (requestId: string) =>
  Schema.encodeSync(wire(DatabaseUnavailable))(new DatabaseUnavailable({ request_id: requestId }))

/**
 * The answer to a request whose handler died of `defect`, logged. A statement that
 * failed because the database connection was lost or refused is weather (DESIGN §9):
 * 503 `database_unavailable` with Retry-After, and one warning per outage without a
 * stack trace (see lost-requests.ts). Anything else is a bug: 500 `internal_error`, and its cause logged as an
 * error. Neither body says anything of the internals.
 */
export const defectAnswer = (defect: unknown, requestId: string): Effect.Effect<DefectAnswer> => {
  const cause = Cause.die(defect)
  return isConnectionFault(defect)
    ? Effect.as(
      requestLost(connectionFaultMessage(cause) ?? "connection lost"),
      {
        status: 503,
        body: databaseUnavailableBody(requestId),
        headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) }
      }
    )
    : Effect.as(Effect.logError("request failed", Cause.pretty(cause)), { status: 500, body: internalErrorBody(requestId), headers: {} })
}
