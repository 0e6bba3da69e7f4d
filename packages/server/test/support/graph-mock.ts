import { SqlClient } from "@effect/sql"
import { afterAll, afterEach, beforeAll } from "@effect/vitest"
import { Effect } from "effect"
import { setupServer } from "msw/node"
import { Secrets } from "../../src/crypto/secrets.js"
import { createKey, signup } from "../auth/support.js"

/** The chat line of Meta's documented bodies (fixtures/meta/responses.ts). */
export const GRAPH_LINE = { phone_number_id: "106540352242922", waba_id: "102290129340398" } as const

/**
 * Meta's Graph API mocked with msw for the calling test file: listening before its
 * first test, the handlers a test added dropped after it, closed after the last.
 * "bypass" lets the file's own requests to the loopback test server through; "error"
 * fails any request no handler takes (files that call only the Graph API).
 */
export const graphMock = (onUnhandledRequest: "bypass" | "error") => {
  const server = setupServer()
  beforeAll(() => server.listen({ onUnhandledRequest }))
  afterEach(() => server.resetHandlers())
  afterAll(() => server.close())
  return server
}

/**
 * A developer (signed up as `label`) with a key of ample rate and a chat channel
 * holding `token`, inserted directly: connect would call the mocked Graph API too.
 */
export const graphDeveloper = (
  label: string,
  channel: { readonly token: string; readonly phone_number_id?: string; readonly waba_id?: string }
) =>
  Effect.gen(function*() {
    const dev = yield* signup(label)
    const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
    const secrets = yield* Secrets
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number }>`
      insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, access_token_encrypted)
      values (${dev.accountId}, 'chat', 'msw', ${channel.phone_number_id ?? GRAPH_LINE.phone_number_id},
              ${channel.waba_id ?? GRAPH_LINE.waba_id}, ${secrets.encrypt(channel.token)})
      returning id`
    return { dev, key, chat: row!.id }
  })

/** `make` run by the first test that asks for it; the file's later tests get its result. */
export const once = <A, E, R>(make: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  let ready: { readonly value: A } | undefined
  return Effect.suspend(() =>
    ready !== undefined ? Effect.succeed(ready.value) : Effect.tap(make, (value) => {
      ready = { value }
    })
  )
}
