import * as HttpClient from "@effect/platform/HttpClient"
import { Clock, Duration, Effect, FiberSet } from "effect"
import { AppConfig } from "../../config.js"
import type { ChatLine } from "./payloads.js"
import { type PostedWebhook, postSignedWebhook } from "./webhook-poster.js"

export interface SandboxCall {
  readonly method: string
  readonly path: string
  readonly at: number
}

export interface SandboxSentMessage {
  readonly id: string
  readonly kind: "chat" | "social"
  /** phone_number_id (chat) or Instagram account id (social). */
  readonly sender_id: string
  readonly to: string
  readonly type: string
  readonly payload: unknown
  readonly at: number
}

export interface SandboxTemplate {
  readonly id: string
  readonly waba_id: string
  readonly name: string
  readonly language: string
  category: string
  status: "PENDING" | "APPROVED" | "REJECTED"
  components: ReadonlyArray<unknown>
  parameter_format: string | null
  rejected_reason: string
}

export interface SandboxMedia {
  readonly id: string
  readonly owner_id: string
  readonly bytes: Uint8Array
  readonly mime_type: string
  readonly filename: string
  readonly sha256: string
}

export interface SandboxUpload {
  readonly id: string
  readonly file_name: string
  readonly file_length: number
  readonly file_type: string
  handle: string | null
}

export interface SandboxWebhookRecord extends Partial<PostedWebhook> {
  readonly payload: unknown
  readonly error?: string
}

/**
 * The simulator's memory: what was sent, stored and posted back, so tests and
 * the dashboard can look at it. Plain mutable structures are enough: every
 * mutation happens synchronously inside one request handler.
 */
export class SandboxState extends Effect.Service<SandboxState>()("@platform/server/SandboxState", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const http = yield* HttpClient.HttpClient
    const fibers = yield* FiberSet.make()

    const calls: Array<SandboxCall> = []
    const messages: Array<SandboxSentMessage> = []
    const markedRead: Array<{ readonly sender_id: string; readonly message_id: string; readonly typing: boolean }> = []
    const templates = new Map<string, SandboxTemplate>()
    const media = new Map<string, SandboxMedia>()
    const uploads = new Map<string, SandboxUpload>()
    const profiles = new Map<string, Record<string, unknown>>()
    const blocked = new Map<string, Set<string>>()
    const pins = new Map<string, string>()
    const registered = new Set<string>()
    const subscribedWabas = new Set<string>()
    const lines = new Map<string, ChatLine>()
    const qualityRatings = new Map<string, string>()
    const webhooks: Array<SandboxWebhookRecord> = []

    /** Posts a signed webhook now and records the attempt (a failure is recorded, never raised). */
    const deliver = (payload: unknown) =>
      postSignedWebhook(config, http, payload).pipe(
        Effect.tap((posted) => Effect.sync(() => webhooks.push({ payload, ...posted }))),
        Effect.catchAll((e) =>
          Effect.sync(() => webhooks.push({ payload, error: e.message })).pipe(
            Effect.zipRight(Effect.logWarning("sandbox webhook not delivered").pipe(Effect.annotateLogs({ reason: e.message })))
          )
        ),
        Effect.asVoid
      )

    /**
     * Posts the payloads one after the other, each `SANDBOX_CALLBACK_DELAY_MS`
     * after the previous, in the background (the request that caused them has
     * already been answered, as with Meta).
     */
    const scheduleCallbacks = (payloads: ReadonlyArray<(nowMs: number) => unknown>) =>
      FiberSet.run(
        fibers,
        Effect.forEach(payloads, (make) =>
          Effect.sleep(Duration.millis(config.sandboxCallbackDelayMs)).pipe(
            Effect.zipRight(Clock.currentTimeMillis),
            Effect.flatMap((now) => deliver(make(now)))
          ), { discard: true })
      ).pipe(Effect.asVoid)

    /** What the simulator knows about a phone number (WABA id, display number) for webhook envelopes. */
    const lineOf = (phoneNumberId: string): ChatLine =>
      lines.get(phoneNumberId) ?? { waba_id: phoneNumberId, phone_number_id: phoneNumberId, display_phone_number: "15550000000" }

    const linkChannel = (line: { readonly phone_number_id: string; readonly waba_id: string; readonly display_phone_number?: string | undefined }) =>
      Effect.sync(() => {
        lines.set(line.phone_number_id, {
          phone_number_id: line.phone_number_id,
          waba_id: line.waba_id,
          display_phone_number: line.display_phone_number ?? "15550000000"
        })
      })

    const reset = Effect.sync(() => {
      calls.length = 0
      messages.length = 0
      markedRead.length = 0
      webhooks.length = 0
      for (const m of [templates, media, uploads, profiles, blocked, pins, lines, qualityRatings]) m.clear()
      registered.clear()
      subscribedWabas.clear()
    })

    /** Waits until every scheduled callback has been posted (tests). */
    const awaitCallbacks = FiberSet.awaitEmpty(fibers)

    return {
      calls,
      messages,
      markedRead,
      templates,
      media,
      uploads,
      profiles,
      blocked,
      pins,
      registered,
      subscribedWabas,
      qualityRatings,
      webhooks,
      deliver,
      scheduleCallbacks,
      lineOf,
      linkChannel,
      reset,
      awaitCallbacks,
      config
    }
  })
}) {}
