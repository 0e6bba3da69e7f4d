import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly n: number
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  readonly at: number
}

export interface Answer {
  readonly status: number
  readonly body?: string
  /** Hold the answer this long (real time). */
  readonly delayMs?: number
}

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** Resolves once `count` requests have arrived. */
  readonly waitFor: (count: number) => Effect.Effect<ReadonlyArray<Received>>
}

/**
 * A real node:http receiver on 127.0.0.1: records every request (raw body bytes)
 * and answers what `answer` says for it (default 200).
 */
export const startReceiver = (answer: (request: Received) => Answer = () => ({ status: 200 })) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ receiver: Receiver; close: () => Promise<void> }>((resolve) => {
        const received: Array<Received> = []
        let waiters: Array<{ count: number; resolve: () => void }> = []
        const server = createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (c: Buffer) => chunks.push(c))
          req.on("end", () => {
            const r: Received = {
              n: received.length + 1,
              path: req.url ?? "/",
              headers: req.headers,
              body: Buffer.concat(chunks),
              at: Date.now()
            }
            received.push(r)
            const a = answer(r)
            const reply = () => {
              res.writeHead(a.status, { "content-type": "text/plain" })
              res.end(a.body ?? "ok")
            }
            if (a.delayMs !== undefined) setTimeout(reply, a.delayMs)
            else reply()
            waiters = waiters.filter((w) => {
              if (received.length >= w.count) {
                w.resolve()
                return false
              }
              return true
            })
          })
        })
        server.keepAliveTimeout = 1000
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as AddressInfo).port
          resolve({
            receiver: {
              url: `http://127.0.0.1:${port}/hook`,
              received,
              waitFor: (count) =>
                Effect.promise(() =>
                  received.length >= count
                    ? Promise.resolve()
                    : new Promise<void>((r) => waiters.push({ count, resolve: r }))
                ).pipe(Effect.as(received))
            },
            close: () =>
              new Promise<void>((r) => {
                server.closeAllConnections()
                server.close(() => r())
              })
          })
        })
      })
    ),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ receiver }) => receiver))

/** Waits (real time, polling) until `check` holds; for state written by background fibers. */
export const eventually = <A, R>(check: Effect.Effect<A | undefined, never, R>, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.dieMessage("condition not reached in time")
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
    }
  })
