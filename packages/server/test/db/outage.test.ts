import { SqlError } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Fiber, Random, Schedule, TestClock } from "effect"
import { OUTAGE_BACKOFF, outageWatch } from "../../src/db/outage.js"
import { captureLogs } from "../support/log-capture.js"

const refused = new SqlError.SqlError({
  cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
  message: "Failed to acquire connection"
})
const duplicate = new SqlError.SqlError({
  cause: Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }),
  message: "Failed to execute statement"
})

/** A statement that cannot reach the database its first `failures` runs (a defect, as repos die of SqlErrors), then answers. */
const flaky = (failures: number) => {
  let runs = 0
  const statement = Effect.suspend(() => (++runs <= failures ? Effect.die(refused) : Effect.succeed("rows")))
  return { statement, runs: () => runs }
}

/** Lets forked fibers run until they wait on the clock. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("outageWatch", () => {
  it.effect("a worker waits out an outage on the backoff and logs it once, then once how long it lasted and how many attempts failed", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const watch = outageWatch("probe worker")
      const { runs, statement } = flaky(4)
      const fiber = yield* Effect.fork(watch.retrying(statement).pipe(Effect.provide(logs.layer)))
      // With the jitter's draw at its middle, the waits are 0.2, 0.4, 0.8 and 1.6 s.
      for (const [ms, attempts] of [[200, 2], [400, 3], [800, 4], [1600, 5]] as const) {
        yield* settle
        expect(runs()).toBe(attempts - 1)
        yield* TestClock.adjust(Duration.millis(ms))
        yield* settle
        expect(runs()).toBe(attempts)
      }
      expect(yield* Fiber.join(fiber)).toBe("rows")
      expect(logs.lines.map((l) => [l.level, l.message, l.annotations])).toEqual([
        ["WARN", "database unreachable; probe worker backing off", { worker: "probe worker", error: "connect ECONNREFUSED 127.0.0.1:5432" }],
        ["INFO", "database reachable again after 3 s; 4 attempts failed", { worker: "probe worker" }]
      ])
    }).pipe(Effect.withRandom(Random.fixed([0.5]))))

  it.effect("fibers sharing a watch log one outage between them", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const watch = outageWatch("shared worker")
      let down = true
      let runs = 0
      const statement = Effect.suspend(() => (runs++, down ? Effect.die(refused) : Effect.succeed("rows")))
      const fibers = yield* Effect.fork(
        Effect.all([watch.retrying(statement), watch.retrying(statement)], { concurrency: "unbounded" }).pipe(
          Effect.provide(logs.layer)
        )
      )
      yield* settle
      yield* TestClock.adjust(Duration.millis(700))
      yield* settle
      down = false
      yield* TestClock.adjust(Duration.seconds(5))
      expect(yield* Fiber.join(fibers)).toEqual(["rows", "rows"])
      // Each fiber: at once, after 0.2 and 0.6 s; both answer after 1.4 s.
      expect(runs).toBe(8)
      expect(logs.lines.map((l) => l.message)).toEqual([
        "database unreachable; shared worker backing off",
        "database reachable again after 1.4 s; 6 attempts failed"
      ])
    }).pipe(Effect.withRandom(Random.fixed([0.5]))))

  it.effect("any other failure is the caller's at once: not retried, not logged", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      let runs = 0
      const failed = yield* outageWatch("probe worker").retrying(Effect.suspend(() => (runs++, Effect.fail(duplicate)))).pipe(
        Effect.flip,
        Effect.provide(logs.layer)
      )
      expect(failed).toBe(duplicate)
      expect(runs).toBe(1)
      expect(logs.lines).toEqual([])
    }))

  it.effect("the backoff waits 0.2 s doubling up to 5 s, each wait within ±20%, and not all alike", () =>
    Effect.gen(function*() {
      const nominal = [200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000, 5000]
      const delays = Chunk.toReadonlyArray(yield* Schedule.run(Schedule.delays(OUTAGE_BACKOFF), 0, nominal)).map(Duration.toMillis)
      delays.forEach((ms, i) => {
        expect(ms).toBeGreaterThanOrEqual(nominal[i]! * 0.8)
        expect(ms).toBeLessThanOrEqual(nominal[i]! * 1.2)
      })
      expect(new Set(delays.map((ms, i) => ms / nominal[i]!)).size).toBeGreaterThan(1)
    }))
})
