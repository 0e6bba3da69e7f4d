import { Cause, Chunk, Option, Predicate, Runtime } from "effect"

const SQLSTATE = /^[0-9A-Z]{5}$/

/*
 * SQLSTATEs that blame the connection, not the statement: class 08 (connection
 * exception), 57P01-57P03 (the server is shutting down, crashed, or not yet
 * accepting connections: a restart or failover) and 53300 (too many connections).
 */
const CONNECTION_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/

/** Socket errors of node under the driver: the database went away or cannot be reached. */
const SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED", "EAI_AGAIN"])

/** Errors a program makes; the driver reports them without a code too, but they are bugs, not outages. */
const isProgrammingError = (error: object) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError || error instanceof ReferenceError

/**
 * Whether the driver's error (a SqlError's cause) says the connection was lost or
 * could not be made. pg reports a lost or refused connection without a SQLSTATE
 * ("Connection terminated unexpectedly", "timeout exceeded when trying to
 * connect", "Client has encountered a connection error and is not queryable") or
 * with node's socket code; the server says so with a SQLSTATE of its own (above).
 */
export const isLostConnection = (error: unknown): boolean => {
  if (error === null || typeof error !== "object") return false
  if (Predicate.isTagged(error, "SqlError")) return isLostConnection((error as { cause?: unknown }).cause)
  const code = (error as { code?: unknown }).code
  // Socket codes first: EPIPE has the shape of a SQLSTATE.
  if (typeof code === "string") return SOCKET_CODES.has(code) || (SQLSTATE.test(code) && CONNECTION_SQLSTATE.test(code))
  return code === undefined && error instanceof Error && !isProgrammingError(error)
}

/**
 * Whether `error` (a failure or a defect) is a database statement that failed
 * because the database was unreachable: a SqlError whose cause is a lost or
 * refused connection, found through wrapping errors and fiber failures. Such a
 * failure is weather, not a bug: a request answers 503, a worker backs off.
 * Anything else, including a statement the database refused, is not.
 */
export const isConnectionFault = (error: unknown, depth = 0): boolean => {
  if (depth > 8 || error === null || typeof error !== "object") return false
  if (Predicate.isTagged(error, "SqlError")) return isLostConnection((error as { cause?: unknown }).cause)
  if (Runtime.isFiberFailure(error)) return hasConnectionFault(error[Runtime.FiberFailureCauseId])
  return "cause" in error && isConnectionFault(error.cause, depth + 1)
}

/** Whether any failure or defect of `cause` is a connection fault (see `isConnectionFault`). */
export const hasConnectionFault = (cause: Cause.Cause<unknown>): boolean =>
  Chunk.some(Cause.failures(cause), (e) => isConnectionFault(e)) ||
  Chunk.some(Cause.defects(cause), (e) => isConnectionFault(e))

/** The driver's own words for the first connection fault of `cause` ("Connection terminated unexpectedly"), for a log line. */
export const connectionFaultMessage = (cause: Cause.Cause<unknown>): string | undefined => {
  const found = Cause.find(cause, (reason) => {
    const error = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
    return isConnectionFault(error) ? Option.some(error) : Option.none()
  })
  return Option.getOrUndefined(Option.map(found, driverMessage))
}

/** The innermost message under SqlErrors and wrapping errors. */
const driverMessage = (error: unknown): string => {
  let current = error
  for (let depth = 0; depth < 8; depth++) {
    const inner = (current as { cause?: unknown } | null)?.cause
    if (inner === null || typeof inner !== "object") break
    current = inner
  }
  return String((current as { message?: unknown } | null)?.message ?? current)
}
