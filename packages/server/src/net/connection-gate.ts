/**
 * Turns at the connections of a receiver: at most `perKey` exchanges run at once per
 * key (pinned-pools.ts's pool key: one origin at one pinned address), the others wait here
 * in arrival order. A pool queues what it cannot run itself, but a request's deadline
 * started while it sat in that queue would count the time spent behind other requests
 * against the receiver: with 128 connections busy answering in 6 s, the next 128
 * requests of a 10 s timeout would fail without having had 10 s. An exchange takes its
 * turn here first and starts its deadline once it has one.
 *
 * Waits are checked when a turn frees up (no timer or abort listener per wait): every
 * running exchange ends within its own deadline, so a wait past `waitMs`, or one whose
 * signal was aborted meanwhile, learns it at the next release at the latest.
 */
interface Waiter {
  readonly since: number
  readonly waitMs: number
  readonly signal: AbortSignal
  readonly resolve: (turn: boolean) => void
}

interface Gate {
  running: number
  readonly waiting: Array<Waiter>
}

export class ConnectionGates {
  private readonly gates = new Map<string, Gate>()

  constructor(private readonly perKey: number) {}

  /**
   * A turn at `key`: `true` at once when one is free, else a Promise of `true` when it
   * comes, or `false` when it came after `waitMs` or after `signal` aborted (no turn
   * taken then: do not `release`).
   */
  take(key: string, waitMs: number, signal: AbortSignal): true | Promise<boolean> {
    let gate = this.gates.get(key)
    if (gate === undefined) {
      gate = { running: 0, waiting: [] }
      this.gates.set(key, gate)
    }
    if (gate.running < this.perKey) {
      gate.running++
      return true
    }
    if (signal.aborted) return Promise.resolve(false)
    const waiting = gate.waiting
    return new Promise<boolean>((resolve) => {
      waiting.push({ since: performance.now(), waitMs, signal, resolve })
    })
  }

  /** Gives back a turn taken at `key`: to the oldest waiter still wanting it, or to the gate. */
  release(key: string): void {
    const gate = this.gates.get(key)
    if (gate === undefined) return
    const now = performance.now()
    for (let next = gate.waiting.shift(); next !== undefined; next = gate.waiting.shift()) {
      if (next.signal.aborted || now - next.since > next.waitMs) {
        next.resolve(false)
        continue
      }
      next.resolve(true)
      return
    }
    gate.running--
    if (gate.running === 0) this.gates.delete(key)
  }

  /** Exchanges running and waiting at `key`. */
  load(key: string): { readonly running: number; readonly waiting: number } {
    const gate = this.gates.get(key)
    return { running: gate?.running ?? 0, waiting: gate?.waiting.length ?? 0 }
  }
}
