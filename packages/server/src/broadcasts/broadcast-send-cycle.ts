import { BROADCAST_SEND_CYCLE_SECONDS } from "@platform/shared"
import { Duration, Effect, FiberSet, Layer, Ref, Schedule, SubscriptionRef } from "effect"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "../jobs/shutdown.js"
import { BroadcastSender } from "./broadcast-sender.js"

/** SPEC §8: the broadcast send cycle ticks every 30 seconds. */
export const BROADCAST_CYCLE = Schedule.fixed(Duration.seconds(BROADCAST_SEND_CYCLE_SECONDS))

/*
 * Passes of one process running at once. A pass stops claiming once a newer one runs, so
 * it outlives its tick by one batch at most (half the 2-minute lease, plus a last upstream
 * call): four cover a tick every 30 s. Past them a tick waits for one to end (the database
 * or the upstream is in trouble), and the next tick then comes at once.
 */
const PASSES_AT_ONCE = 4

/**
 * The send cycle: a pass at once, then one every 30 s on the Effect clock. Each tick
 * forks its pass, so it starts the due scheduled broadcasts and claims new work even while
 * an earlier pass still sends a slow batch (a slow upstream or a channel sending one a
 * second holds a batch up to a minute): a broadcast sent meanwhile, of any channel, goes
 * out on the next tick. Overlapping passes are safe as several processes are: claims skip
 * locked rows and hold a lease, and the channels' throttle is the process's own, shared by
 * every pass. An earlier pass ends after its current batch once a newer one runs, and goes
 * on when that one has already ended (so recipients it hands back are claimed again at once).
 * A pass that cannot reach the database is tried again with backoff (the outage logged
 * once); a pass failed otherwise is logged and the cycle goes on; `ticks` counts finished
 * passes (tests wait on it instead of on time). Passes are fibers of the cycle. On a stop of the process
 * (jobs/shutdown.ts) no tick starts a pass, and a running pass finishes the recipient it
 * is sending and releases the rest of its batch; one still running at the deadline is
 * interrupted, and what it had claimed but not sent is taken again once its lease runs out.
 */
export const broadcastSendCycle = (ticks?: SubscriptionRef.SubscriptionRef<number>) =>
  Effect.gen(function*() {
    const sender = yield* BroadcastSender
    const shutdown = yield* Shutdown
    const passes = yield* FiberSet.make()
    const room = yield* Effect.makeSemaphore(PASSES_AT_ONCE)
    const running = yield* Ref.make<ReadonlySet<number>>(new Set())
    let latest = 0
    // Shared by the passes: one line per outage, however many passes wait it out.
    const outage = outageWatch("broadcast send cycle")
    // Each attempt is a unit of the stop's work, not the waits between attempts: a stop
    // during an outage does not wait for the database.
    const pass = (n: number) => {
      const attempt = sender.runOnce({
        superseded: Effect.map(Ref.get(running), (all) => [...all].some((m) => m > n)),
        stopping: Effect.sync(shutdown.isStopping)
      })
      return outage.retrying(shutdown.work(attempt)).pipe(
        Effect.catchAllCause((cause) => Effect.logError("broadcast send cycle failed", cause)),
        Effect.ensuring(Ref.update(running, (all) => new Set([...all].filter((m) => m !== n)))),
        Effect.zipRight(ticks === undefined ? Effect.void : SubscriptionRef.update(ticks, (k) => k + 1)),
        Effect.ensuring(room.release(1))
      )
    }
    const tick = Effect.gen(function*() {
      yield* room.take(1)
      const n = ++latest
      yield* Ref.update(running, (all) => new Set([...all, n]))
      yield* FiberSet.run(passes, pass(n))
    })
    return yield* shutdown.work(tick).pipe(Effect.repeat(BROADCAST_CYCLE), Effect.asVoid)
  }).pipe(Effect.scoped)

/** The send cycle as a scoped fiber (registered only where workers run). */
export const BroadcastSendCycleLive = Layer.scopedDiscard(Effect.flatMap(Shutdown, (shutdown) => shutdown.fork(broadcastSendCycle()))).pipe(
  Layer.provide(BroadcastSender.Default)
)
