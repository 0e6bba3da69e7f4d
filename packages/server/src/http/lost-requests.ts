import { Clock, Effect } from "effect"
import { databaseAnswers } from "../db/answers.js"

/*
 * The requests of this process that failed because the database was unreachable,
 * logged once per outage: a line at the first (with the driver's words), a count of
 * the others, and a summary once the database answers again, instead of a warning
 * per request (hundreds a second on a busy API).
 */
let since: number | undefined
let answersAtStart = 0
let lost = 0

/** A request answers 503 database_unavailable: the first of an outage is logged, the others counted. */
export const requestLost = (error: string) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    lost++
    if (since !== undefined) return Effect.void
    since = now
    answersAtStart = databaseAnswers()
    return Effect.logWarning("database unreachable: requests answer 503 until it is back").pipe(
      Effect.annotateLogs("error", error)
    )
  })

/** After a response: once the database has answered any statement since the outage began, its summary. */
export const requestsSettled: Effect.Effect<void> = Effect.suspend(() => {
  if (since === undefined || databaseAnswers() === answersAtStart) return Effect.void
  const started = since
  const failures = lost
  since = undefined
  lost = 0
  return Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.logInfo(
      `database answering requests again after ${Math.round((now - started) / 100) / 10} s; ${failures} requests answered 503`
    ))
})
