import { describe, expect, it } from "@effect/vitest"
import { ConnectionGates } from "../../src/net/connection-gate.js"

const MINUTE = 60_000

describe("ConnectionGates", () => {
  it("gives turns at once up to the limit per key, and keys apart", () => {
    const gates = new ConnectionGates(2)
    const signal = new AbortController().signal
    expect(gates.take("a", MINUTE, signal)).toBe(true)
    expect(gates.take("a", MINUTE, signal)).toBe(true)
    expect(gates.take("a", MINUTE, signal)).toBeInstanceOf(Promise)
    expect(gates.take("b", MINUTE, signal)).toBe(true)
    expect(gates.load("a")).toEqual({ running: 2, waiting: 1 })
    expect(gates.load("b")).toEqual({ running: 1, waiting: 0 })
  })

  it("hands a released turn to the oldest waiter, and forgets an idle key", async () => {
    const gates = new ConnectionGates(1)
    const signal = new AbortController().signal
    expect(gates.take("a", MINUTE, signal)).toBe(true)
    const order: Array<string> = []
    const second = (gates.take("a", MINUTE, signal) as Promise<boolean>).then((turn) => order.push(`second ${turn}`))
    const third = (gates.take("a", MINUTE, signal) as Promise<boolean>).then((turn) => order.push(`third ${turn}`))

    gates.release("a")
    await second
    expect(order).toEqual(["second true"])
    expect(gates.load("a")).toEqual({ running: 1, waiting: 1 })

    gates.release("a")
    await third
    expect(order).toEqual(["second true", "third true"])

    gates.release("a")
    expect(gates.load("a")).toEqual({ running: 0, waiting: 0 })
    expect(gates.take("a", MINUTE, signal)).toBe(true)
  })

  it("skips a waiter aborted meanwhile (no turn: it must not release) and gives the turn to the next", async () => {
    const gates = new ConnectionGates(1)
    const live = new AbortController().signal
    const aborted = new AbortController()
    expect(gates.take("a", MINUTE, live)).toBe(true)
    const gone = gates.take("a", MINUTE, aborted.signal) as Promise<boolean>
    const next = gates.take("a", MINUTE, live) as Promise<boolean>
    aborted.abort()

    gates.release("a")
    expect(await gone).toBe(false)
    expect(await next).toBe(true)
    expect(gates.load("a")).toEqual({ running: 1, waiting: 0 })
  })

  it("refuses a wait whose signal is already aborted", async () => {
    const gates = new ConnectionGates(1)
    const aborted = new AbortController()
    aborted.abort()
    expect(gates.take("a", MINUTE, aborted.signal)).toBe(true) // a free turn is taken: the exchange sees the abort
    expect(await gates.take("a", MINUTE, aborted.signal)).toBe(false)
    expect(gates.load("a")).toEqual({ running: 1, waiting: 0 })
  })
})
