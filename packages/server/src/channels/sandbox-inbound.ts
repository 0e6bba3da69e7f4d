import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { SqlClient } from "@effect/sql"
import {
  NotFound,
  SANDBOX_CHAT_INBOUND_TYPES,
  SANDBOX_SOCIAL_INBOUND_TYPES,
  type SandboxInbound as SandboxInboundBody,
  type SandboxInboundAccepted,
  UpstreamFailure,
  ValidationFailed
} from "@platform/shared"
import { Effect } from "effect"
import { AppConfig } from "../config.js"
import { injectInbound } from "../upstream/sandbox/inject-inbound.js"
import { longerThan, TEXT_MAX_CHARS, tooLong } from "./text-limits.js"

const TYPES_BY_KIND: Record<"chat" | "social", ReadonlyArray<string>> = {
  chat: SANDBOX_CHAT_INBOUND_TYPES,
  social: SANDBOX_SOCIAL_INBOUND_TYPES
}
const KIND_NAME = { chat: "a chat (WhatsApp)", social: "a social (Instagram)" } as const

/**
 * What depends on the channel's kind, checked as Meta would: the message types its users
 * send, and the text length (WhatsApp 4096 characters, Instagram fewer than 1000, as on send).
 */
const kindIssue = (kind: "chat" | "social", input: SandboxInboundBody): ValidationFailed | undefined => {
  const type = input.type ?? "text"
  if (input.echo === true && kind !== "chat") {
    return new ValidationFailed({
      detail: [{ loc: ["body", "echo"], msg: "echoes come from the chat app: only a chat (WhatsApp) channel has them", type: "value_error", input: true, ctx: {} }]
    })
  }
  if (!TYPES_BY_KIND[kind].includes(type)) {
    return new ValidationFailed({
      detail: [{
        loc: ["body", "type"],
        msg: `${KIND_NAME[kind]} channel's users do not send ${type} messages; one of ${TYPES_BY_KIND[kind].join(", ")}`,
        type: "value_error",
        input: type,
        ctx: { expected: TYPES_BY_KIND[kind] }
      }]
    })
  }
  const fromPayload = (input.payload as { readonly body?: unknown } | undefined)?.body
  const [loc, text] = input.text !== undefined
    ? [["text"], input.text]
    : type === "text" && typeof fromPayload === "string"
    ? [["payload", "body"], fromPayload]
    : [[], undefined]
  return text !== undefined && longerThan(text, TEXT_MAX_CHARS[kind]) ? tooLong(loc, TEXT_MAX_CHARS[kind], text) : undefined
}

interface ChannelRow {
  readonly type: "chat" | "social"
  readonly phone_number_id: string | null
  readonly waba_id: string | null
  readonly display_phone_number: string | null
  readonly social_id: string | null
  readonly inbound_enabled: boolean
}

/**
 * POST /platform/dashboard/sandbox/inbound: has the simulator post a signed,
 * Meta-shaped inbound message for one of the account's connected channels to
 * /webhook/incoming, so it goes through the real inbound pipeline. Only with
 * UPSTREAM=sandbox (404 otherwise); another account's channel is the same 404 as none.
 */
export class SandboxInbound extends Effect.Service<SandboxInbound>()("@platform/server/SandboxInbound", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const http = yield* HttpClient.HttpClient

    const inject = Effect.fn("SandboxInbound.inject")(function*(accountId: number, input: SandboxInboundBody) {
      if (config.upstream !== "sandbox") {
        return yield* new NotFound({ message: "the sandbox upstream is not enabled on this server (UPSTREAM=meta)" })
      }
      const [row] = yield* sql<ChannelRow>`
        select type, phone_number_id, waba_id, display_phone_number, social_id, inbound_enabled from platform_channels
        where id = ${input.channel_id} and developer_account_id = ${accountId} and status = 'connected'`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound({ message: "channel not found" })
      const invalid = kindIssue(row.type, input)
      if (invalid !== undefined) return yield* invalid
      const injected = yield* injectInbound({
        channel: {
          kind: row.type,
          phone_number_id: row.phone_number_id ?? undefined,
          waba_id: row.waba_id ?? undefined,
          social_id: row.social_id ?? undefined,
          // Webhook metadata carries the display number as digits only.
          display_phone_number: row.display_phone_number?.replace(/\D/g, "") || undefined
        },
        from: input.from,
        text: input.text,
        type: input.type,
        payload: input.payload,
        profile_name: input.profile_name,
        context_message_id: input.context_message_id,
        echo: input.echo
      }).pipe(
        Effect.provideService(AppConfig, config),
        Effect.provideService(HttpClient.HttpClient, http),
        Effect.catchTags({
          // The request schema already refuses what injectInbound would; kept for safety.
          UpstreamRequestInvalid: (e) => Effect.fail(new UpstreamFailure({ message: `sandbox inbound refused: ${e.message}` })),
          SandboxWebhookFailed: (e) => Effect.fail(new UpstreamFailure({ message: `sandbox inbound not delivered: ${e.message}` }))
        })
      )
      if (injected.status >= 300) {
        return yield* new UpstreamFailure({
          message: `sandbox inbound not accepted: /webhook/incoming answered HTTP ${injected.status}`
        })
      }
      return { message_id: injected.message_id, inbound_enabled: row.inbound_enabled } satisfies SandboxInboundAccepted
    })

    return { inject } as const
  }),
  dependencies: [FetchHttpClient.layer]
}) {}
