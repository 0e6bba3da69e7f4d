import { Effect, Layer, Runtime } from "effect"
import { AppConfig } from "./config.js"

/*
 * What the stop may take after the grace period: the HTTP drain and the workers end at
 * the deadline; closing the database (an embedded one writes its files) follows.
 */
const CLOSE_MS = 5_000

/**
 * SIGTERM and SIGINT for the life of the process, beside the runtime's own handler
 * (main.ts: `NodeRuntime.runMain`), which interrupts the app on the first one and then
 * lets Node's default handling kill the process on the next. A repeat is usual (Ctrl-C
 * reaches both `npm start`'s launcher, which passes it on, and the server), and must not
 * cut the stop short, so repeats are ignored here: the grace period bounds the stop. If
 * the stop overruns it anyway (a finalizer that hangs), the process exits 1 with a line
 * on stderr rather than holding the port and the embedded database's lock forever.
 */
export const StopSignalsLive = Layer.effectDiscard(Effect.gen(function*() {
  const { shutdownGraceMs } = yield* AppConfig
  const runtime = yield* Effect.runtime<never>()
  let received: string | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (received !== undefined) {
      Runtime.runFork(runtime)(Effect.logDebug(`${signal} received while stopping on ${received}: ignored`))
      return
    }
    received = signal
    Runtime.runFork(runtime)(Effect.logInfo(`${signal} received: stopping (SHUTDOWN_GRACE_MS ${shutdownGraceMs})`))
    setTimeout(() => {
      process.stderr.write(`Stop on ${signal} did not end within ${shutdownGraceMs + CLOSE_MS} ms; exiting.\n`)
      process.exit(1)
    }, shutdownGraceMs + CLOSE_MS).unref()
  }
  process.on("SIGTERM", onSignal)
  process.on("SIGINT", onSignal)
}))
