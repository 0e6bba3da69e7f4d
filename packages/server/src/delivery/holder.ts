import { SqlClient } from "@effect/sql"
import { RAW_FORWARD_LEASE_SECONDS } from "@platform/shared"
import { type Cause, Clock, Duration, Effect } from "effect"
import { AppConfig } from "../config.js"
import { hasConnectionFault } from "../db/connection-fault.js"

/** Resolves after `ms` of wall time: a heartbeat is real time, whatever clock a test runs its workers on. */
const wallSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/**
 * This process as the holder of the delivery rows it claims (migration 0025). It registers
 * in delivery_holders when it starts and renews its heartbeat every third of
 * DELIVERY_LEASE_MS for as long as it runs, on a fiber of its own (a slow POST or a long
 * record does not hold it up). Every row it claims, normalized or raw forward, carries
 * its `id`. A holder whose heartbeat is older than the lease is dead: other processes take
 * its rows over at once (`dead`), instead of waiting out the rows' own leases (30 s for a
 * normalized delivery, 2 minutes for a raw forward), which still bound a holder that is
 * alive but hung. One per process: every layer that needs it names `DeliveryHolder.Default`.
 */
export class DeliveryHolder extends Effect.Service<DeliveryHolder>()("@platform/server/DeliveryHolder", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { deliveryLeaseMs } = yield* AppConfig
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const [registered] = yield* sql<{ readonly id: number }>`
      insert into delivery_holders (renewed_at) values (${yield* now}) returning id`.pipe(Effect.orDie)
    const id = Number(registered!.id)

    // An upsert: a row pruned while this process could not reach the database comes back.
    const renew = Effect.flatMap(now, (at) =>
      sql`
        insert into delivery_holders (id, renewed_at) overriding system value values (${id}, ${at})
        on conflict (id) do update set renewed_at = greatest(delivery_holders.renewed_at, excluded.renewed_at)`)
    const logged = (cause: Cause.Cause<unknown>) =>
      hasConnectionFault(cause) ? Effect.void : Effect.logError("delivery holder heartbeat failed; renewed again shortly", cause)
    const period = Math.max(1, Math.floor(deliveryLeaseMs / 3))
    yield* wallSleep(period).pipe(
      Effect.zipRight(renew.pipe(Effect.catchAllCause(logged))),
      Effect.forever,
      Effect.forkScoped
    )

    /**
     * The holders whose heartbeat lapsed (never this process). Holders dead for longer than a
     * raw forward's lease are deleted on the way: by then every row they held is past its own
     * lease, which takes it over without them.
     */
    const dead = Effect.flatMap(Clock.currentTimeMillis, (ms) => {
      const stale = new Date(ms - deliveryLeaseMs)
      const forgotten = new Date(ms - deliveryLeaseMs - RAW_FORWARD_LEASE_SECONDS * 1000)
      return sql<{ readonly id: number }>`
        with pruned as (delete from delivery_holders where renewed_at < ${forgotten})
        select id from delivery_holders where renewed_at < ${stale} and id <> ${id}`.pipe(
        Effect.map((rows) => rows.map((r) => Number(r.id)))
      )
    })

    return {
      id,
      leaseMs: deliveryLeaseMs,
      /** How often the workers look for dead holders: a sixth of the lease. */
      checkEvery: Duration.millis(Math.max(50, Math.floor(deliveryLeaseMs / 6))),
      dead
    } as const
  })
}) {}
