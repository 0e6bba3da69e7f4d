import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { makeSingleFlight } from "../../src/db/single-flight.js"

describe("makeSingleFlight", () => {
  it.effect("callers of one key while its lookup runs share that lookup and its answer; another key has its own", () =>
    Effect.gen(function*() {
      const flights = makeSingleFlight<string, number, never>()
      const gate = yield* Deferred.make<void>()
      let runs = 0
      const lookup = (answer: number) => Effect.sync(() => runs++).pipe(Effect.zipRight(Deferred.await(gate)), Effect.as(answer))
      const fibers = yield* Effect.forEach([1, 2, 3], (n) => Effect.fork(flights.run("a", lookup(n))))
      const other = yield* Effect.fork(flights.run("b", lookup(9)))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Effect.forEach(fibers, Fiber.join)).toEqual([1, 1, 1])
      expect(yield* Fiber.join(other)).toBe(9)
      expect(runs).toBe(2)
      // Done: the next caller looks up again.
      expect(yield* flights.run("a", lookup(4))).toBe(4)
      expect(runs).toBe(3)
    }))

  it.effect("after forget, a caller starts a lookup of its own instead of waiting for the one in flight", () =>
    Effect.gen(function*() {
      const flights = makeSingleFlight<string, string, never>()
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.fork(flights.run("k", Deferred.await(gate).pipe(Effect.as("before"))))
      yield* Effect.yieldNow()
      flights.forget("k")
      expect(yield* flights.run("k", Effect.succeed("after"))).toBe("after")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(first)).toBe("before")
    }))

  it.effect("a waiter gets the leader's defect, and the leader's lookup is not cut short when the leader is interrupted", () =>
    Effect.gen(function*() {
      const flights = makeSingleFlight<string, string, never>()
      const gate = yield* Deferred.make<void>()
      const leader = yield* Effect.fork(flights.run("k", Deferred.await(gate).pipe(Effect.as("answer"))))
      yield* Effect.yieldNow()
      const waiter = yield* Effect.fork(flights.run("k", Effect.succeed("unused")))
      yield* Effect.yieldNow()
      const interrupting = yield* Effect.fork(Fiber.interrupt(leader))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(interrupting)
      expect(yield* Fiber.join(waiter)).toBe("answer")

      const broken = yield* Effect.exit(flights.run("d", Effect.die(new Error("lost"))))
      expect(Exit.isFailure(broken) && Exit.causeOption(broken)._tag === "Some").toBe(true)
      const dying = yield* Deferred.make<void>()
      const dyingLeader = yield* Effect.fork(flights.run("e", Deferred.await(dying).pipe(Effect.zipRight(Effect.die(new Error("lost"))))))
      yield* Effect.yieldNow()
      const dyingWaiter = yield* Effect.fork(flights.run("e", Effect.succeed("unused")))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(dying, undefined)
      expect(Exit.isFailure(yield* Fiber.await(dyingLeader))).toBe(true)
      expect(Exit.isFailure(yield* Fiber.await(dyingWaiter))).toBe(true)
    }))
})
