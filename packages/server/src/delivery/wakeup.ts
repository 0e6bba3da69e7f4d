import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Queue, Stream } from "effect"

/**
 * A broadcast pulse. A worker takes `current` BEFORE it looks for work and waits
 * on it only when it found none, so a pulse fired while it was busy is never lost.
 */
export class Pulse {
  private resolve: () => void = () => {}
  private promise: Promise<void> = this.next()

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
  }

  get current(): Promise<void> {
    return this.promise
  }
}

/** Waits for `pulse` (taken before the work) or `timeout` on the Effect clock, whichever is first. */
export const awaitPulse = (pulse: Promise<void>, timeout: Duration.DurationInput) =>
  Effect.promise(() => pulse).pipe(Effect.timeoutOption(timeout), Effect.asVoid)

const EVENTS_CHANNEL = "platform_events"
const DELIVERIES_CHANNEL = "platform_deliveries"

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
    const events = new Pulse()
    const deliveries = new Pulse()
    const buffer = new Pulse()

    const notifier = (channel: string) =>
      Effect.gen(function*() {
        const queue = yield* Queue.sliding<void>(1)
        yield* Queue.take(queue).pipe(
          Effect.zipRight(pg.notify(channel, "1").pipe(Effect.catchAll(() => Effect.void))),
          Effect.forever,
          Effect.forkScoped
        )
        return crossProcess ? () => Queue.unsafeOffer(queue, undefined) : () => {}
      })
    const notifyEvents = yield* notifier(EVENTS_CHANNEL)
    const notifyDeliveries = yield* notifier(DELIVERIES_CHANNEL)

    // Other processes' writes.
    const listen = (channel: string, pulse: Pulse) =>
      pg.listen(channel).pipe(
        Stream.runForEach(() => Effect.sync(() => pulse.fire())),
        Effect.catchAll((e) => Effect.logDebug(`LISTEN ${channel} unavailable`, e)),
        Effect.forkScoped
      )
    if (crossProcess) {
      yield* listen(EVENTS_CHANNEL, events)
      yield* listen(DELIVERIES_CHANNEL, deliveries)
    }

    return {
      events,
      deliveries,
      buffer,
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
      bufferWritten: Effect.sync(() => buffer.fire())
    } as const
  })
}) {}

