import { SqlClient } from "@effect/sql"
import { Cause, Deferred, Duration, Effect, Option, Queue } from "effect"
import type { StoredResponse } from "./idempotency.js"
import type { ClaimedKey } from "./message-statements.js"

/**
 * The record of a send the upstream already answered, which the database did not
 * take: `write` writes it and may run again after an attempt whose answer was lost,
 * so it must find its own earlier commit (see `alreadyRecorded`).
 */
export interface HeldOutcome {
  readonly write: Effect.Effect<void, unknown>
  readonly accountId: number
  readonly channelId: number
  readonly metaMessageId: string | null
  /**
   * The Idempotency-Key the send claimed, and what a retry with it is answered while
   * the record is held: the stored reply, or `undefined` for 503 outcome_pending.
   */
  readonly claimed?: ClaimedKey & { readonly reply: StoredResponse | undefined }
}

/** What a retry with a key whose outcome is held here gets instead of a claim. */
export interface HeldKey {
  readonly hash: string
  readonly metaMessageId: string | null
  readonly reply: StoredResponse | undefined
}

interface Entry {
  readonly outcome: HeldOutcome
  readonly written: Deferred.Deferred<void>
  readonly heldAt: number
  attempts: number
  /** Failed attempts in a row while the database answered a probe. */
  refusals: number
  retryAt: number
}

/*
 * Past this many held outcomes new sends are refused before the upstream call, whatever
 * the database says: memory stays bounded, and an outcome that will not write (below)
 * cannot make the process hold every send after it.
 */
export const HELD_OUTCOMES_MAX = 1000

/*
 * A write retried while the database is unreachable: after 100 ms, doubling to 2 s, so a
 * restart or failover of a few seconds is written within 2 s of its end (the Retry-After
 * of outcome_pending) while an outage of minutes costs one connection attempt every 2 s.
 */
const RETRY_FIRST_MS = 100
const RETRY_CAP_MS = 2_000
/* An outcome the database refuses while it answers `select 1` is a bug, not weather: retried once a minute, logged each time. */
const REFUSED_RETRY_MS = 60_000
/* One attempt of the loop waits this long for the database (a black-holed connection never answers). */
const ATTEMPT_TIMEOUT = Duration.seconds(10)
const PROBE_TIMEOUT = Duration.seconds(2)
/* While anything is held, one line of summary this often (a line per held outcome would repeat every 2 s). */
const SUMMARY_EVERY_MS = 60_000
/* At shutdown the loop gets this long to write what it holds before what is left is logged as lost. */
const SHUTDOWN_GRACE_MS = 5_000

/** The driver's own words under SqlErrors and fiber failures ("Connection terminated unexpectedly"). */
const reasonOf = (error: unknown): string => {
  let current = error
  for (let depth = 0; depth < 8; depth++) {
    const inner = (current as { readonly cause?: unknown } | null)?.cause
    if (inner === null || inner === undefined || typeof inner !== "object") break
    current = inner
  }
  return String((current as { readonly message?: unknown } | null)?.message ?? current)
}

const keyOf = (accountId: number, key: string) => `${accountId}\u0000${key}`

/**
 * Outcomes of sends the upstream accepted (or refused) whose record the database
 * failed to take: held in memory and written, in the order they came, when it
 * answers again, so that what Meta has sent is recorded once (message, message.sent,
 * the Idempotency-Key reply, a broadcast recipient's state) and the status
 * callbacks that follow find the message. While one is held and the database is
 * unreachable, `admit` refuses new sends before their upstream call (they fail as
 * the database failed them), so an outage holds at most the sends in flight when
 * it began; a retry with a held Idempotency-Key is answered from here (`heldKey`)
 * without a claim, which the outage may have let go stale. Held outcomes live as
 * long as the process: one that stops during an outage logs each it could not write.
 */
export class HeldOutcomes extends Effect.Service<HeldOutcomes>()("@platform/server/HeldOutcomes", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const held = new Set<Entry>()
    const byKey = new Map<string, Entry>()
    // Set while the last write of a held outcome failed and the database did not answer a probe: why.
    let unreachable: unknown = undefined
    let backoffMs = RETRY_FIRST_MS
    let summarizedAt = 0
    const wake = yield* Queue.sliding<void>(1)
    const oneRound = yield* Effect.makeSemaphore(1)

    const forget = (entry: Entry) => {
      held.delete(entry)
      const claimed = entry.outcome.claimed
      if (claimed !== undefined && byKey.get(keyOf(entry.outcome.accountId, claimed.key)) === entry) {
        byKey.delete(keyOf(entry.outcome.accountId, claimed.key))
      }
    }

    const annotations = (entry: Entry) => ({
      account_id: entry.outcome.accountId,
      channel_id: entry.outcome.channelId,
      meta_message_id: entry.outcome.metaMessageId ?? "",
      idempotency_key: entry.outcome.claimed?.key ?? ""
    })

    const answers = sql`select 1`.pipe(
      Effect.timeoutOption(PROBE_TIMEOUT),
      Effect.map(Option.isSome),
      Effect.catchAllCause(() => Effect.succeed(false))
    )

    /**
     * Writes what is due, oldest first. The first write that fails while the database does
     * not answer ends the round (the rest would fail the same way); one the database
     * refuses while it answers is put off by a minute and the round goes on.
     */
    const round = oneRound.withPermits(1)(Effect.gen(function*() {
      for (const entry of [...held]) {
        if (!held.has(entry) || entry.retryAt > Date.now()) continue
        const exit = yield* entry.outcome.write.pipe(Effect.timeoutOption(ATTEMPT_TIMEOUT), Effect.exit)
        if (exit._tag === "Success" && Option.isSome(exit.value)) {
          forget(entry)
          unreachable = undefined
          backoffMs = RETRY_FIRST_MS
          yield* Deferred.succeed(entry.written, undefined)
          yield* Effect.logInfo("held send outcome recorded").pipe(
            Effect.annotateLogs({ ...annotations(entry), held_ms: Date.now() - entry.heldAt, attempts: entry.attempts + 1 })
          )
          continue
        }
        entry.attempts++
        const why = exit._tag === "Failure" ? Cause.squash(exit.cause) : new Error("the database did not answer in time")
        if (yield* answers) {
          // The database may have come back while the attempt failed: it is tried again at once, and
          // put off only when it fails a second time in a row with the database answering.
          unreachable = undefined
          entry.refusals++
          entry.retryAt = entry.refusals < 2 ? 0 : Date.now() + REFUSED_RETRY_MS
          if (entry.refusals >= 2) {
            yield* Effect.logError("a held send outcome is refused by the database; retried in a minute").pipe(
              Effect.annotateLogs({ ...annotations(entry), error: reasonOf(why) })
            )
          }
          continue
        }
        entry.refusals = 0
        unreachable = why
        return
      }
    }))

    const summary = Effect.suspend(() => {
      if (held.size === 0 || Date.now() - summarizedAt < SUMMARY_EVERY_MS) return Effect.void
      summarizedAt = Date.now()
      const oldest = Math.min(...[...held].map((e) => e.heldAt))
      return Effect.logWarning("send outcomes held until the database answers").pipe(
        Effect.annotateLogs({
          held: held.size,
          oldest_ms: Date.now() - oldest,
          error: unreachable === undefined ? "" : reasonOf(unreachable)
        })
      )
    })

    const pause = Effect.suspend(() => {
      if (held.size === 0) return Queue.take(wake)
      let ms: number
      if (unreachable !== undefined) {
        ms = backoffMs
        backoffMs = Math.min(RETRY_CAP_MS, backoffMs * 2)
      } else {
        ms = Math.max(0, Math.min(...[...held].map((e) => e.retryAt)) - Date.now())
      }
      return Effect.race(Queue.take(wake), Effect.sleep(Duration.millis(ms)))
    })

    yield* Effect.forkScoped(Effect.forever(pause.pipe(
      Effect.zipRight(round),
      Effect.zipRight(summary),
      // The loop outlives anything a round could throw: what it holds would otherwise wait for a restart.
      Effect.catchAllCause((cause) => Effect.logError("the held send outcomes' loop failed; it goes on", cause))
    )))

    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const deadline = Date.now() + SHUTDOWN_GRACE_MS
        while (held.size > 0 && Date.now() < deadline) {
          for (const entry of held) entry.retryAt = 0
          yield* round
          if (held.size > 0) yield* Effect.sleep(Duration.millis(RETRY_CAP_MS / 4))
        }
        for (const entry of held) {
          yield* Effect.logError("a send the upstream answered is not recorded: the process stops while the database is unreachable")
            .pipe(Effect.annotateLogs({ ...annotations(entry), error: unreachable === undefined ? "" : reasonOf(unreachable) }))
        }
      })
    )

    /**
     * Before a send's upstream call: dies as the database failed (the last error of a held
     * write) while an outcome is held and the database does not answer, or when too many are held.
     */
    const admit = Effect.suspend(() =>
      (held.size > 0 && unreachable !== undefined) || held.size >= HELD_OUTCOMES_MAX
        ? Effect.die(unreachable ?? new Error(`${held.size} send outcomes are waiting for the database`))
        : Effect.void
    )

    /**
     * Holds `outcome`, whose write just failed with `error`; the database counts as
     * unreachable until a write or probe says otherwise. Answers an effect that ends
     * when the outcome is written.
     */
    const hold = (outcome: HeldOutcome, error: unknown) =>
      Effect.gen(function*() {
        const entry: Entry = { outcome, written: yield* Deferred.make<void>(), heldAt: Date.now(), attempts: 1, refusals: 0, retryAt: 0 }
        if (held.size === 0) summarizedAt = Date.now()
        held.add(entry)
        if (outcome.claimed !== undefined) byKey.set(keyOf(outcome.accountId, outcome.claimed.key), entry)
        unreachable = error
        backoffMs = RETRY_FIRST_MS
        yield* Effect.logWarning("the database failed as a send the upstream answered was recorded; holding it until it returns").pipe(
          Effect.annotateLogs({ ...annotations(entry), error: reasonOf(error), held: held.size })
        )
        yield* Queue.offer(wake, undefined)
        return Deferred.await(entry.written)
      })

    /** The held outcome of a claimed Idempotency-Key of this process, if any. */
    const heldKey = (accountId: number, key: string): HeldKey | undefined => {
      const entry = byKey.get(keyOf(accountId, key))
      const claimed = entry?.outcome.claimed
      return claimed === undefined
        ? undefined
        : { hash: claimed.hash, metaMessageId: entry!.outcome.metaMessageId, reply: claimed.reply }
    }

    return { admit, hold, heldKey } as const
  })
}) {}
