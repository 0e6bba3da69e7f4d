import { Effect, Either } from "effect"
import { AppConfig } from "../config.js"
import { RawForward } from "../delivery/raw-forward.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { decodeMetaWebhook, type MetaWebhookPayload } from "../upstream/webhook-payload.js"
import { parseRawJson } from "./compact-json.js"
import { InboundStore, type PersistResult } from "./persist.js"
import { buildPlan, identifiersOf } from "./plan.js"
import { ChannelDirectory, type ChannelLookup } from "./router.js"
import { verifyInboundSignature } from "./verify.js"

/** What `/webhook/incoming` answers the upstream. */
export interface InboundAnswer {
  readonly status: number
  readonly body: unknown
}

const IGNORED: InboundAnswer = { status: 200, body: { status: "ignored" } }
const QUOTA_EXCEEDED: InboundAnswer = {
  status: 200,
  body: { status: "platform", forwarded: false, reason: "inbound_quota_exceeded" }
}
const FORWARDED: InboundAnswer = { status: 200, body: { status: "platform", forwarded: true } }
const NOT_FORWARDED: InboundAnswer = { status: 200, body: { status: "platform", forwarded: false } }
const UNSIGNED: InboundAnswer = {
  status: 401,
  body: { detail: { code: "unauthorized", message: "X-Hub-Signature-256 is missing or does not match the body" } }
}
const badRequest = (message: string): InboundAnswer => ({
  status: 400,
  body: { detail: { code: "invalid_body", message } }
})

const utf8 = new TextDecoder("utf-8", { fatal: true })

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

    /** After commit: the inline raw-forward attempt (or a wake-up), the fan-out wake-up, the answer. */
    const afterCommit = (result: PersistResult, inline: boolean): Effect.Effect<InboundAnswer> => {
      const answer: InboundAnswer = result.quotaExceeded
        ? QUOTA_EXCEEDED
        : result.deliveries.length > 0
        ? FORWARDED
        : NOT_FORWARDED
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
      if (steps.length === 0) return Effect.succeed(answer)
      if (steps.length === 1) return Effect.as(steps[0]!, answer)
      return Effect.as(Effect.all(steps, { discard: true }), answer)
    }

    const persist = (decoded: MetaWebhookPayload, json: unknown, text: string, lookup: ChannelLookup) => {
      const plan = buildPlan(decoded, json, parseRawJson(text), lookup)
      if (!plan.routed) return Effect.succeed(IGNORED)
      const inline = config.runsWorkers
      return Effect.flatMap(store.persist(plan, { inline }), (result) => afterCommit(result, inline))
    }

    /*
     * The hot path of the platform: kept to plain code around ONE effect (the
     * statement) when the routes are cached, with no span and no per-request
     * fiber machinery beyond it. Uninterruptible: once the statement is sent, a
     * client that hangs up must not cut off what follows its commit.
     */
    const receive = (body: Uint8Array, signature: string | undefined): Effect.Effect<InboundAnswer> =>
      Effect.suspend(() => {
        if (!verifyInboundSignature(config.metaAppSecret, body, signature)) return Effect.succeed(UNSIGNED)
        let text: string
        let json: unknown
        try {
          text = utf8.decode(body)
          json = JSON.parse(text)
        } catch {
          return Effect.succeed(badRequest("the body is not UTF-8 JSON"))
        }
        const decoded = decodeMetaWebhook(json)
        if (Either.isLeft(decoded)) return Effect.as(Effect.logInfo("inbound payload of an unknown shape ignored"), IGNORED)
        const ids = identifiersOf(decoded.right)
        const lookup = directory.cached(ids)
        return lookup !== undefined
          ? persist(decoded.right, json, text, lookup)
          : Effect.flatMap(directory.resolve(ids), (resolved) => persist(decoded.right, json, text, resolved))
      }).pipe(Effect.uninterruptible)

    return { receive } as const
  }),
  dependencies: [ChannelDirectory.Default, InboundStore.Default, RawForward.Default, DeliveryWakeup.Default]
}) {}
