import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { type Dev, request } from "../auth/support.js"
import { eventually } from "./receiver.js"

export { AuthTestServer as SandboxTestServer, capturedLogs, createKey, type Dev, request, signup } from "../auth/support.js"
export { eventually }

export const D = "/platform/dashboard"

/** A phone number id (15 digits, like Meta's) no other test uses. */
export const freshPhoneNumberId = () => String(100000000000000 + Math.floor(Math.random() * 899999999999999))

export const connectChat = (dev: Dev, body: Record<string, unknown> = {}) => {
  const pnid = freshPhoneNumberId()
  return request("POST", `${D}/channels/connect/chat`, {
    cookie: dev.cookie,
    body: { code: "embedded-signup-code", phone_number_id: pnid, waba_id: `2${pnid.slice(1)}`, ...body }
  })
}

export const connectSocial = (dev: Dev, body: Record<string, unknown> = {}) =>
  request("POST", `${D}/channels/connect/social`, {
    cookie: dev.cookie,
    body: { code: "oauth-code", redirect_uri: "https://app.example/callback", ...body }
  })

export const inject = (dev: Dev, body: Record<string, unknown>) =>
  request("POST", `${D}/sandbox/inbound`, { cookie: dev.cookie, body })

/** The simulator's call log, as "METHOD /path" strings without the version, from `since` on. */
export const callsSince = (since: number) =>
  Effect.map(SandboxState, (state) => state.calls.slice(since).map((c) => `${c.method} ${c.path.replace(/^(\/__sandbox\/graph)?\/v[\d.]+/, "")}`))

export const callCount = Effect.map(SandboxState, (state) => state.calls.length)

export const setPlan = (dev: Dev, plan: string) => request("POST", `${D}/billing/plan`, { cookie: dev.cookie, body: { plan } })

/** Polls (bounded) until the inbound pipeline has stored the message with this upstream id. */
export const inboundRow = (channelId: number, metaMessageId: string) =>
  eventually(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number; direction: string; source: string; type: string; text: string | null; developer_account_id: number }>`
      select id, direction, source, type, text, developer_account_id from messages
      where platform_channel_id = ${channelId} and meta_message_id = ${metaMessageId}`.pipe(
      Effect.map((rows) => rows[0]),
      Effect.orDie
    )))

export const receivedEvent = (channelId: number, metaMessageId: string) =>
  eventually(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ event_type: string; envelope: any }>`
      select event_type, envelope from events
      where platform_channel_id = ${channelId} and event_type = 'message.received'
        and (envelope->'data'->>'meta_message_id') = ${metaMessageId}`.pipe(
      Effect.map((rows) => rows[0]),
      Effect.orDie
    )))
