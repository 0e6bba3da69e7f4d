import { Effect, Either } from "effect"
import { AppConfig } from "../config.js"
import { RawForward } from "../delivery/raw-forward.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { decodeMetaWebhook } from "../upstream/webhook-payload.js"
import { parseRawJson } from "./compact-json.js"
import { InboundStore } from "./persist.js"
import { buildPlan, identifiersOf } from "./plan.js"
import { ChannelDirectory } from "./router.js"
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

    const receive = Effect.fn("Inbound.receive")(function*(body: Uint8Array, signature: string | undefined) {
      if (!verifyInboundSignature(config.metaAppSecret, body, signature)) return UNSIGNED
      let text: string
      let json: unknown
      try {
        text = utf8.decode(body)
        json = JSON.parse(text)
      } catch {
        return badRequest("the body is not UTF-8 JSON")
      }
      const decoded = decodeMetaWebhook(json)
      if (Either.isLeft(decoded)) {
        yield* Effect.logInfo("inbound payload of an unknown shape ignored")
        return IGNORED
      }
      const lookup = yield* directory.resolve(identifiersOf(decoded.right))
      const plan = buildPlan(decoded.right, json, parseRawJson(text), lookup)
      if (!plan.routed) return IGNORED

      const inline = config.runsWorkers
      const result = yield* store.persist(plan, { inline })
      if (result.deliveries.length > 0) {
        yield* inline ? rawForward.dispatchInline(result.deliveries) : rawForward.rowsWritten
      }
      if (result.events > 0) yield* wakeup.eventsWritten
      if (result.unknownStatuses.length > 0) {
        yield* Effect.logInfo("status callback for a message the platform never sent").pipe(
          Effect.annotateLogs("meta_message_ids", result.unknownStatuses.join(","))
        )
      }
      if (result.quotaExceeded) return QUOTA_EXCEEDED
      return { status: 200, body: { status: "platform", forwarded: result.deliveries.length > 0 } } satisfies InboundAnswer
    }, Effect.uninterruptible)

    return { receive } as const
  }),
  dependencies: [ChannelDirectory.Default, InboundStore.Default, RawForward.Default, DeliveryWakeup.Default]
}) {}
