import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { DeliveryTransport } from "../../src/delivery/transport.js"
import { startReceiver } from "../support/receiver.js"

const Local = DeliveryTransport.Live.pipe(Layer.provide(AppConfig.layerWith({ UNSAFE_ALLOW_LOCAL_TARGETS: "true" })))
const Guarded = DeliveryTransport.Live.pipe(Layer.provide(AppConfig.layerWith({})))

const body = Buffer.from("{}")

layer(Local, { excludeTestServices: true })("DeliveryTransport (loopback allowed)", (it) => {
  it.scoped("send answers with the status, the first 512 bytes of the body and the latency, every time", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((r) => ({ status: r.n === 2 ? 503 : 200, body: "x".repeat(600) }))
      const transport = yield* DeliveryTransport
      const outcomes = yield* Effect.promise(() =>
        Promise.all([1, 2, 3].map(() => transport.send(receiver.url, { "x-test": "yes" }, body)))
      )
      expect(outcomes.map((o) => o._tag === "Answered" ? o.status : o.reason).sort()).toEqual([200, 200, 503])
      for (const outcome of outcomes) {
        expect(outcome._tag === "Answered" && outcome.snippet).toBe("x".repeat(512))
        expect(outcome.latencyMs).toBeGreaterThanOrEqual(0)
      }
      expect(receiver.received.map((r) => r.headers["x-test"])).toEqual(["yes", "yes", "yes"])
    }))

  it.scoped("aborting send's controller abandons the request (shutdown), and interrupting post does too", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 200, delayMs: 5_000 }))
      const transport = yield* DeliveryTransport
      const controller = new AbortController()
      const pending = transport.send(receiver.url, {}, body, controller)
      yield* receiver.waitFor(1)
      controller.abort()
      const outcome = yield* Effect.promise(() => pending)
      expect(outcome._tag).toBe("NoAnswer")
      expect(outcome.latencyMs).toBeLessThan(4_000)

      const fiber = yield* Effect.fork(transport.post(receiver.url, {}, body))
      yield* receiver.waitFor(2)
      yield* Fiber.interrupt(fiber)
    }))
})

layer(Guarded, { excludeTestServices: true })("DeliveryTransport (production guard)", (it) => {
  it.scoped("a refused target is no answer with the guard's reason, and is refused again on the next POST", () =>
    Effect.gen(function*() {
      const transport = yield* DeliveryTransport
      for (let i = 0; i < 2; i++) {
        const outcome = yield* Effect.promise(() => transport.send("https://10.1.2.3/hook", {}, body))
        expect(outcome).toMatchObject({ _tag: "NoAnswer", reason: "target is a private address (10.1.2.3)" })
      }
    }))
})
