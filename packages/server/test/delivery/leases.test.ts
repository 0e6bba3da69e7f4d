import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import { AppConfig } from "../../src/config.js"
import { AutoPause } from "../../src/delivery/auto-pause.js"
import { DeliveryEngineLive } from "../../src/delivery/delivery-workers.js"
import { Dispatcher } from "../../src/delivery/dispatcher.js"
import { EngineSql } from "../../src/delivery/engine-sql.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { DeliveryHolder } from "../../src/delivery/holder.js"
import { RawForward } from "../../src/delivery/raw-forward.js"
import { Events } from "../../src/outbox/events.js"
import { createChannel, postInbound, TestInbound } from "../inbound/support.js"
import { inboundText } from "../fixtures/meta/inbound.js"
import { createAccount, createSubscription, deliveriesOf, EngineDatabase, writeMessageEvent } from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"

/*
 * A process holding delivery rows renews its heartbeat every third of DELIVERY_LEASE_MS
 * (delivery/holder.ts); a holder whose heartbeat lapsed has its rows taken over by another
 * process within the lease, while a live holder keeps its rows however slow its receiver.
 */
const LEASE_MS = 900

const Engine = DeliveryEngineLive.pipe(
  Layer.provideMerge(Events.Default),
  Layer.provideMerge(EngineDatabase),
  Layer.provideMerge(AppConfig.layerWith({ LOG_LEVEL: "error", DELIVERY_LEASE_MS: String(LEASE_MS) }))
)

/** Another worker process: a dispatcher with a holder (and heartbeat) of its own, in `scope`. */
const otherProcess = (scope: Scope.Scope) =>
  Effect.gen(function*() {
    const context = yield* Layer.buildWithScope(
      Dispatcher.Default.pipe(
        Layer.provideMerge(DeliveryHolder.Default),
        Layer.provide(AutoPause.Default),
        Layer.provide(EngineSql.Default)
      ),
      scope
    )
    return { dispatcher: yield* Effect.provide(Dispatcher, context), holder: yield* Effect.provide(DeliveryHolder, context) }
  })

const oneDelivery = (url: string) =>
  Effect.gen(function*() {
    const { accountId, channelId } = yield* createAccount()
    const subscription = yield* createSubscription({ accountId, url })
    yield* writeMessageEvent({ accountId, channelId, peer: "5511900000001", text: "held" })
    yield* (yield* FanOut).runOnce()
    return subscription.id
  })

const waitUntil = (check: () => boolean) =>
  Effect.promise(async () => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 10))
  }).pipe(Effect.timeout(Duration.seconds(10)))

layer(Engine, { excludeTestServices: true })("delivery leases (SPEC limits: stuck delivery lease)", (it) => {
  it.scoped("a live holder keeps its row in flight past the lease: no other dispatcher takes it while its receiver is slow", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 200, delayMs: 3 * LEASE_MS }))
      const subscriptionId = yield* oneDelivery(receiver.url)
      const a = yield* otherProcess(yield* Effect.scope)
      const b = yield* Dispatcher
      yield* a.dispatcher.pump({ sweep: Duration.millis(50) })
      yield* waitUntil(() => receiver.received.length === 1)
      const [held] = yield* deliveriesOf(subscriptionId)
      expect(held!.status).toBe("delivering")
      // Three leases while A's POST is open: B looks for rows to take over and finds none.
      const taken: Array<number> = []
      const until = Date.now() + 2.5 * LEASE_MS
      while (Date.now() < until) {
        taken.push((yield* b.reclaimExpired()).claimed)
        yield* Effect.sleep(Duration.millis(LEASE_MS / 6))
      }
      expect(taken.every((n) => n === 0)).toBe(true)
      yield* waitUntil(() => false).pipe(Effect.timeout(Duration.millis(LEASE_MS)), Effect.ignore)
      const [row] = yield* deliveriesOf(subscriptionId)
      expect({ status: row!.status, attempts: row!.attempts }).toEqual({ status: "delivered", attempts: 1 })
      expect(receiver.received).toHaveLength(1)
    }))

  it.scoped("a holder that stopped renewing (its process gone) has its row taken over by another dispatcher within the lease, once", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((r) => (r.n === 1 ? { status: 200, delayMs: 5_000 } : { status: 200 }))
      const subscriptionId = yield* oneDelivery(receiver.url)
      const scope = yield* Scope.make()
      const a = yield* otherProcess(scope)
      yield* a.dispatcher.pump({ sweep: Duration.millis(50) })
      yield* waitUntil(() => receiver.received.length === 1)
      // A's process ends without a stop: its POST is cut, its heartbeat stops, its row stays delivering.
      yield* Scope.close(scope, Exit.void)
      const goneAt = Date.now()
      const sql = yield* SqlClient.SqlClient
      const [before] = yield* sql<{ status: string; holder: number }>`
        select status, holder from webhook_deliveries where subscription_id = ${subscriptionId}`
      expect(before).toEqual({ status: "delivering", holder: a.holder.id })
      const b = yield* Dispatcher
      let claimed = 0
      while (claimed === 0 && Date.now() - goneAt < 5 * LEASE_MS) {
        claimed = (yield* b.reclaimExpired()).claimed
        if (claimed === 0) yield* Effect.sleep(Duration.millis(LEASE_MS / 6))
      }
      const tookMs = Date.now() - goneAt
      expect(claimed).toBe(1)
      // Its last heartbeat was at most a third of the lease before it went.
      expect(tookMs).toBeGreaterThanOrEqual(LEASE_MS / 2)
      expect(tookMs).toBeLessThanOrEqual(LEASE_MS + LEASE_MS / 2)
      const [row] = yield* deliveriesOf(subscriptionId)
      expect({ status: row!.status, attempts: row!.attempts }).toEqual({ status: "delivered", attempts: 1 })
      expect(receiver.received.map((r) => r.headers["webhook-id"])).toEqual([
        receiver.received[0]!.headers["webhook-id"],
        receiver.received[0]!.headers["webhook-id"]
      ])
      expect((yield* b.reclaimExpired()).claimed).toBe(0)
    }))
})

layer(TestInbound({ DELIVERY_LEASE_MS: String(LEASE_MS) }), { excludeTestServices: true })("raw-forward leases", (it) => {
  it.scoped("the raw forwards of a holder whose heartbeat lapsed are due at once, a live holder's are left alone", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const sql = yield* SqlClient.SqlClient
      const rawForward = yield* RawForward
      const ch = yield* createChannel({ webhookUrl: receiver.url })
      // Two rows, as a sweep of another process leased them for 2 minutes: one holder alive, one dead.
      const [dead] = yield* sql<{ id: number }>`
        insert into delivery_holders (renewed_at) values (now() - make_interval(secs => ${(3 * LEASE_MS) / 1000})) returning id`
      const [alive] = yield* sql<{ id: number }>`insert into delivery_holders (renewed_at) values (now()) returning id`
      yield* postInbound(inboundText(ch.line, "5511900000002", "dead"))
      yield* postInbound(inboundText(ch.line, "5511900000002", "alive"))
      yield* waitUntil(() => receiver.received.length === 2)
      const ids = () =>
        sql<{ id: number; status: string }>`
          select id, status from platform_deliveries where platform_channel_id = ${ch.channelId} order by id`
      yield* Effect.repeat(ids(), { until: (rows) => rows.every((r) => r.status === "delivered") })
      const [first, second] = yield* ids()
      for (const [id, holder] of [[first!.id, dead!.id], [second!.id, alive!.id]] as const) {
        yield* sql`
          update platform_deliveries set status = 'delivering', attempts = 0, next_retry_at = now() + interval '2 minutes',
            holder = ${holder}
          where id = ${id}`
      }
      // The live one renews its heartbeat, as its process would.
      yield* sql`update delivery_holders set renewed_at = now() where id = ${alive!.id}`
      expect(yield* rawForward.takeOverDead).toBe(1)
      expect(yield* rawForward.sweepOnce()).toBe(1)
      const rows = yield* sql<{ holder: number; status: string; attempts: number }>`
        select holder, status, attempts from platform_deliveries where platform_channel_id = ${ch.channelId} order by id`
      expect(rows).toEqual([
        { holder: rawForward.holder, status: "delivered", attempts: 1 },
        { holder: alive!.id, status: "delivering", attempts: 0 }
      ])
      expect(receiver.received.map((r) => JSON.parse(r.body.toString("utf8")).entry[0].changes[0].value.messages[0].text.body))
        .toEqual(["dead", "alive", "dead"])
    }))
})
