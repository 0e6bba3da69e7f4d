import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Option, Queue, type Scope, Stream } from "effect"
import { randomBytes } from "node:crypto"
import type { ClaimedRow } from "./claims.js"
import { pgNotify } from "../db/client.js"
import { PgNotifications } from "../db/notifications.js"

/**
 * A broadcast pulse. A worker takes `current` BEFORE it looks for work and waits
 * on it only when it found none, so a pulse fired while it was busy is never lost.
 *
 * Wait with `awaitAny` / `awaitPulse`, not on the promise: a wait that ends
 * another way (a timeout, another pulse, an interruption) must leave nothing
 * behind. A reaction attached to `current` stays until the pulse fires, holding
 * the waiting fiber; the dispatcher's claimer raced the stop pulse, which fires
 * only at shutdown, on every pass (about 1,000 fibers held per 3 minutes under
 * load), and at idle a fan-out wait times out 4 times a second.
 */
export class Pulse {
  private resolve: () => void = () => {}
  private promise: Promise<void> = this.next()
  private readonly listeners = new Set<() => void>()

  private next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.resolve = resolve
    })
  }

  /** Wakes every worker waiting on the current pulse. */
  fire(): void {
    const resolve = this.resolve
    this.promise = this.next()
    resolve()
    if (this.listeners.size === 0) return
    const listeners = [...this.listeners]
    this.listeners.clear()
    for (const listener of listeners) listener()
  }

  get current(): Promise<void> {
    return this.promise
  }

  /** Waits registered now (`listen`): none once every wait has ended, however it ended. */
  get waiting(): number {
    return this.listeners.size
  }

  /** Calls `listener` once the pulse has fired since `mark` (a `current` taken earlier; at once if it has); returns its removal. */
  listen(mark: Promise<void>, listener: () => void): () => void {
    if (mark !== this.promise) {
      listener()
      return () => {}
    }
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }
}

/**
 * Waits until one of the pulses has fired since its mark (taken before the work)
 * and answers which (its index). Nothing of the wait stays registered once it
 * has answered or been interrupted.
 */
export const awaitAny = (waits: ReadonlyArray<readonly [Pulse, Promise<void>]>): Effect.Effect<number> =>
  Effect.async<number>((resume) => {
    const removals: Array<() => void> = []
    let settled = false
    const removeAll = () => {
      for (const remove of removals) remove()
      removals.length = 0
    }
    const settle = (index: number) => {
      if (settled) return
      settled = true
      removeAll()
      resume(Effect.succeed(index))
    }
    for (let i = 0; i < waits.length && !settled; i++) {
      const [pulse, mark] = waits[i]!
      removals.push(pulse.listen(mark, () => settle(i)))
    }
    if (settled) removeAll()
    return Effect.sync(() => {
      settled = true
      removeAll()
    })
  })

/** Waits for `pulse` to fire since `mark` (taken before the work) or `timeout` on the Effect clock, whichever is first. */
export const awaitPulse = (pulse: Pulse, mark: Promise<void>, timeout: Duration.DurationInput) =>
  awaitAny([[pulse, mark]]).pipe(Effect.timeoutOption(timeout), Effect.asVoid)

/**
 * The running dispatcher of this process, as fan-out sees it: fan-out inserts up
 * to `reserve`d rows already claimed (status delivering, lease = the fan-out's
 * timestamp) and hands them over, saving a claim round trip and a wake-up hop.
 * The rows are committed before any POST and the lease covers a crash.
 */
export interface DirectDispatch {
  /** Takes up to `max` POST slots now; returns how many were granted (0 when saturated). */
  readonly reserve: (max: number) => number
  /** Starts `rows` (claimed under `claimedAt`) and gives back the reserved slots they did not use. */
  readonly start: (rows: ReadonlyArray<ClaimedRow>, claimedAt: Date, reserved: number) => Effect.Effect<void>
  /** Asks for the head rows of these (subscription, conversation_peer) pairs to be claimed when due. */
  readonly probe: (pairs: ReadonlyArray<readonly [number, string]>) => void
  /**
   * Waits until a claim's worth of POST slots is free and returns how many are; 0 when
   * no slot at all was freed for `timeout` (stalled). Slots freed but taken by the
   * dispatcher's own claims (older pending rows go first) keep the wait going, for a
   * few such periods at most.
   */
  readonly room: (timeout: Duration.DurationInput) => Effect.Effect<number>
}

// Postgres NOTIFY channels, not tables. A NOTIFY another process missed (its
// LISTEN connection lost, or a process of a rolling deploy that spells the channel
// differently) costs a sweep period: fan-out looks every 250 ms, dispatch every second.
const EVENTS_NOTIFY = "platform_events"
const NORMALIZED_DELIVERIES_NOTIFY = "platform_normalized_deliveries"

/**
 * Wakes the delivery workers the moment there is work. In this process through
 * pulses; in other processes through ONE coalesced Postgres NOTIFY issued after
 * the commit (a NOTIFY inside every writing transaction serializes commits,
 * DESIGN §8): while a NOTIFY is in flight, further requests collapse into one.
 * Writers of event rows call `eventsWritten` after their transaction commits;
 * sweeps are the recovery when nobody does.
 */
export class DeliveryWakeup extends Effect.Service<DeliveryWakeup>()("@platform/server/DeliveryWakeup", {
  scoped: Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    // Embedded PGlite is one process by construction, and its socket server mixes
    // asynchronous notifications into other connections' protocol streams: there,
    // the in-process pulses are the whole mechanism.
    const [server] = yield* pg<{ version: string }>`select version() as version`.pipe(Effect.orDie)
    const crossProcess = !/PGlite/i.test(server?.version ?? "")
    // The payload of this process's NOTIFYs, by which it recognises its own.
    const self = randomBytes(8).toString("hex")
    const events = new Pulse()
    const deliveries = new Pulse()
    const buffer = new Pulse()

    const notifier = (channel: string) =>
      Effect.gen(function*() {
        const queue = yield* Queue.sliding<void>(1)
        yield* Queue.take(queue).pipe(
          Effect.zipRight(pgNotify(pg, channel, self).pipe(Effect.catchAll(() => Effect.void))),
          Effect.forever,
          Effect.forkScoped
        )
        return crossProcess ? () => Queue.unsafeOffer(queue, undefined) : () => {}
      })
    const notifyEvents = yield* notifier(EVENTS_NOTIFY)
    const notifyDeliveries = yield* notifier(NORMALIZED_DELIVERIES_NOTIFY)

    // Other processes' writes (and RESYNC after a lost LISTEN connection). This
    // process's own NOTIFYs come back too: its pulses fired already, and a second
    // wake-up would cost a second (empty) claim.
    const notifications = yield* PgNotifications
    const listen = (channel: string, pulse: Pulse) =>
      Effect.flatMap(notifications.subscribe(channel), (payloads) =>
        payloads.pipe(
          Stream.runForEach((payload) => Effect.sync(() => payload === self ? undefined : pulse.fire())),
          Effect.forkScoped
        ))
    if (crossProcess) {
      yield* listen(EVENTS_NOTIFY, events)
      yield* listen(NORMALIZED_DELIVERIES_NOTIFY, deliveries)
    }

    let direct: DirectDispatch | undefined

    return {
      events,
      deliveries,
      buffer,
      /** The dispatcher of this process that accepts rows claimed by fan-out, if one runs. */
      direct: (): DirectDispatch | undefined => direct,
      /** Registers `dispatch` as the direct dispatcher for the life of the scope. */
      registerDirect: (dispatch: DirectDispatch): Effect.Effect<void, never, Scope.Scope> =>
        Effect.acquireRelease(
          Effect.sync(() => {
            direct = dispatch
          }),
          () =>
            Effect.sync(() => {
              if (direct === dispatch) direct = undefined
            })
        ),
      /** After the commit of event rows: wakes fan-out and event streams here and elsewhere. */
      eventsWritten: Effect.sync(() => {
        events.fire()
        notifyEvents()
      }),
      /** After the commit of delivery rows: wakes the dispatchers here and elsewhere. */
      deliveriesWritten: Effect.sync(() => {
        deliveries.fire()
        notifyDeliveries()
      }),
      /** After the commit of delivery rows this process's dispatcher already knows of: wakes the others. */
      deliveriesAnnounced: Effect.sync(() => notifyDeliveries()),
      bufferWritten: Effect.sync(() => buffer.fire())
    } as const
  })
}) {}

/**
 * For domain code that writes event rows: call right AFTER the transaction
 * returns (never inside it: a NOTIFY in every writing transaction serializes
 * commits, DESIGN §8), e.g.
 *
 *   const row = yield* sql.withTransaction(...)
 *   yield* eventsCommitted
 *
 * Wakes fan-out (and event streams) in this process at once and in other
 * processes through one coalesced NOTIFY. Uses the DeliveryWakeup of the calling
 * context and does nothing where there is none (the fan-out sweep covers it).
 */
export const eventsCommitted: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(DeliveryWakeup),
  Option.match({ onNone: () => Effect.void, onSome: (wakeup) => wakeup.eventsWritten })
)

/** `transaction.pipe(announcingEvents)`: runs a transaction that writes event rows, then `eventsCommitted` if it succeeded. */
export const announcingEvents = <A, E, R>(transaction: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tap(transaction, () => eventsCommitted)
