import { Effect, Exit } from "effect"
import { AppConfig } from "../config.js"
import type { InboundOutcome } from "../telemetry/metrics.js"
import { RawForward } from "../delivery/raw-forward.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import type { PersistResult } from "./batch.js"
import { ChannelDirectory, type ChannelLookup } from "./channel-directory.js"
import { CompactJsonError, parseRawJson, type RawJson } from "./compact-json.js"
import { at } from "./message-content.js"
import { InboundStore } from "./persist.js"
import { buildPlan, type InboundPlan } from "./plan.js"
import { identifiersOf } from "./upstream-identifiers.js"
import { verifyInboundSignature } from "./verify.js"

/** What `/webhook/incoming` answers the upstream, and what became of the POST (metrics). */
export interface InboundAnswer {
  readonly status: number
  readonly body: unknown
  readonly outcome?: InboundOutcome | undefined
  readonly headers?: Readonly<Record<string, string>>
}

const IGNORED: InboundAnswer = { status: 200, body: { status: "ignored" }, outcome: "ignored" }
const QUOTA_EXCEEDED: InboundAnswer = {
  status: 200,
  body: { status: "platform", forwarded: false, reason: "inbound_quota_exceeded" },
  outcome: "quota_exceeded"
}
const FORWARDED_BODY = { status: "platform", forwarded: true }
const NOT_FORWARDED_BODY = { status: "platform", forwarded: false }
const UNSIGNED: InboundAnswer = {
  status: 401,
  body: { detail: { code: "unauthorized", message: "X-Hub-Signature-256 is missing or does not match the body" } },
  outcome: "bad_signature"
}
const badRequest = (message: string): InboundAnswer => ({
  status: 400,
  body: { detail: { code: "invalid_body", message } },
  outcome: "invalid_body"
})

/** New messages stored; else only duplicates; else status callbacks parked; else updates. */
const outcomeOf = (plan: InboundPlan, result: PersistResult): InboundOutcome =>
  result.inserted > 0
    ? "stored"
    : plan.messages.length > 0
    ? "duplicate"
    : result.unknownStatuses.length > 0
    ? "parked"
    : "updated"

const utf8 = new TextDecoder("utf-8", { fatal: true })

const OBJECTS = new Set(["whatsapp_business_account", "instagram", "page"])

/** Logs the parts of a POST that were parked (not the shape Meta documents), once per channel. */
const logParked = (plan: InboundPlan) =>
  Effect.forEach(
    plan.forwards.filter((f) => f.parked !== null),
    (f) =>
      Effect.logWarning("inbound payload parked: parts of it are not the shape Meta documents; skipped and recorded for the channel").pipe(
        Effect.annotateLogs({ channel_id: f.channel_id, reason: f.parked! })
      ),
    { discard: true }
  )

/**
 * How `receive` hands back its answer: `respond` with an answer already known,
 * or `run` with the effect that computes it (the caller runs it as it runs its
 * request effects: request id annotation, a defect turned into a 500).
 */
export interface Reply {
  readonly respond: (answer: InboundAnswer) => void
  readonly run: (answer: Effect.Effect<InboundAnswer>) => void
  /** The POST's span as a `traceparent`, stored with the events it writes (their deliveries link to it). */
  readonly traceParent?: string | undefined
}

/**
 * The managed inbound endpoint's rules (SPEC §1, §6.5; DESIGN §5): verify the
 * signature over the bytes received, route by upstream identifier, persist the
 * whole POST in one statement, answer only after commit, then hand new
 * raw-forward rows to the inline attempt (or wake the workers) and wake the
 * normalized fan-out.
 */
export class Inbound extends Effect.Service<Inbound>()("@platform/server/Inbound", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const directory = yield* ChannelDirectory
    const store = yield* InboundStore
    const rawForward = yield* RawForward
    const wakeup = yield* DeliveryWakeup

    const answerOf = (plan: InboundPlan, result: PersistResult): InboundAnswer =>
      result.quotaExceeded
        ? QUOTA_EXCEEDED
        : { status: 200, body: result.deliveries.length > 0 ? FORWARDED_BODY : NOT_FORWARDED_BODY, outcome: outcomeOf(plan, result) }

    /** After commit: the inline raw-forward attempt (or a wake-up), the fan-out wake-up, a log line; undefined when none is due. */
    const afterCommit = (result: PersistResult, inline: boolean): Effect.Effect<void> | undefined => {
      const steps: Array<Effect.Effect<void>> = []
      if (result.deliveries.length > 0) {
        steps.push(inline ? rawForward.dispatchInline(result.deliveries) : rawForward.rowsWritten)
      }
      if (result.events > 0) steps.push(wakeup.eventsWritten)
      if (result.unknownStatuses.length > 0) {
        steps.push(Effect.logInfo("status callback for a message not recorded (yet): parked until its send is recorded or it expires").pipe(
          Effect.annotateLogs("meta_message_ids", result.unknownStatuses.join(","))
        ))
      }
      return steps.length === 0 ? undefined : steps.length === 1 ? steps[0]! : Effect.all(steps, { discard: true })
    }
    const answerAfterCommit = (plan: InboundPlan, result: PersistResult, inline: boolean): Effect.Effect<InboundAnswer> => {
      const steps = afterCommit(result, inline)
      return steps === undefined ? Effect.succeed(answerOf(plan, result)) : Effect.as(steps, answerOf(plan, result))
    }

    /**
     * Plans a POST against its channels and writes it: joined to the next batch
     * (answered by the batch writer after the commit) or, when it must, alone.
     */
    const persist = (
      json: unknown,
      raw: RawJson,
      lookup: ChannelLookup,
      respond: Reply["respond"],
      run: Reply["run"],
      traceParent: string | undefined
    ): void => {
      const plan = buildPlan(json, raw, lookup)
      if (!plan.routed) return respond(IGNORED)
      const inline = config.runsWorkers
      // Rare: logged, and written alone (no batch waits on the log).
      if (plan.forwards.some((f) => f.parked !== null)) {
        return run(Effect.zipRight(
          logParked(plan),
          Effect.flatMap(store.alone(plan, inline, traceParent), (result) => answerAfterCommit(plan, result, inline))
        ))
      }
      const queued = store.enqueue(plan, { inline, traceParent }, (exit) => {
        if (Exit.isFailure(exit)) return run(Exit.failCause(exit.cause))
        let steps: Effect.Effect<void> | undefined
        try {
          steps = afterCommit(exit.value, inline)
        } catch (defect) {
          return run(Effect.die(defect))
        }
        return steps === undefined ? respond(answerOf(plan, exit.value)) : run(Effect.as(steps, answerOf(plan, exit.value)))
      })
      if (!queued) run(Effect.flatMap(store.alone(plan, inline, traceParent), (result) => answerAfterCommit(plan, result, inline)))
    }

    /*
     * The hot path of the platform, in plain code: with the routes cached and the
     * plan joining a batch, no fiber is started for the POST (the batch writer
     * answers it after the commit); only what follows a commit, when anything does,
     * and the rare paths (unknown routes, a POST that must run alone, an
     * unknown shape to log) run as effects, uninterruptibly: once the statement is
     * sent, a client that hangs up must not cut off what follows its commit.
     * A synchronous throw here is the caller's to turn into a 500.
     */
    const receive = (body: Uint8Array, signature: string | undefined, reply: Reply): void => {
      const run = (effect: Effect.Effect<InboundAnswer>) => reply.run(Effect.uninterruptible(effect))
      if (!verifyInboundSignature(config.metaAppSecret, body, signature)) return reply.respond(UNSIGNED)
      let text: string
      let json: unknown
      try {
        text = utf8.decode(body)
        json = JSON.parse(text)
      } catch {
        return reply.respond(badRequest("the body is not UTF-8 JSON"))
      }
      if (!OBJECTS.has(at(json, "object") as string) || !Array.isArray(at(json, "entry"))) {
        return run(Effect.as(Effect.logInfo("inbound payload of an unknown shape ignored"), IGNORED))
      }
      let raw: RawJson
      try {
        raw = parseRawJson(text)
      } catch (e) {
        // Deeper than the compact parser goes (no Meta payload nests a tenth as deep): Meta is
        // answered 200 so that it stops retrying what could never be stored.
        if (!(e instanceof CompactJsonError)) throw e
        return run(Effect.as(
          Effect.logWarning("inbound payload ignored: it cannot be stored").pipe(Effect.annotateLogs("reason", e.message)),
          IGNORED
        ))
      }
      const ids = identifiersOf(json)
      const lookup = directory.cached(ids)
      if (lookup !== undefined) return persist(json, raw, lookup, reply.respond, run, reply.traceParent)
      // Routes not cached yet: resolved first, then the same path, answering into this effect.
      run(Effect.flatMap(directory.resolve(ids), (resolved) =>
        Effect.async<InboundAnswer>((resume) =>
          persist(json, raw, resolved, (answer) => resume(Effect.succeed(answer)), resume, reply.traceParent))))
    }

    return { receive } as const
  }),
  dependencies: [ChannelDirectory.Default, InboundStore.Default, RawForward.Default, DeliveryWakeup.Default]
}) {}
