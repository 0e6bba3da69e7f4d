import { SqlClient } from "@effect/sql"
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_TTL_HOURS,
  IdempotencyKeyInFlight,
  IdempotencyKeyReused,
  ValidationFailed
} from "@platform/shared"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { PgPool } from "../db/client.js"
import { makePrepared } from "../db/prepared.js"

/** A response kept for replay: status and the exact JSON body bytes. */
export interface StoredResponse {
  readonly status: number
  readonly body: string
}

export type Claim =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }

interface Row {
  readonly claimed: boolean
  readonly request_hash: string | null
  readonly status: string | null
  readonly response_status: number | null
  readonly response_body: string | null
}

/*
 * A claim left in_flight by a process that died (no release ran) is taken over after
 * this long; a send finishes within the upstream's 10 s deadline, so two minutes
 * never cuts a live request short.
 */
export const STALE_IN_FLIGHT_SECONDS = 120

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])])
    )
  }
  return value
}

/** SHA-256 over the route and the body with sorted keys: key order never makes two bodies differ. */
export const requestHash = (route: string, body: unknown): string =>
  createHash("sha256").update(route).update("\n").update(JSON.stringify(canonical(body))).digest("hex")

/** The header's value checked against DESIGN §5 (1..255 characters); absent is fine. */
export const parseIdempotencyKey = (value: string | undefined): Effect.Effect<string | undefined, ValidationFailed> =>
  value === undefined || (value.length >= 1 && value.length <= IDEMPOTENCY_KEY_MAX_LENGTH)
    ? Effect.succeed(value)
    : Effect.fail(
      new ValidationFailed({
        detail: [{
          loc: ["header", "idempotency-key"],
          msg: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`,
          type: "value_error",
          input: value,
          ctx: {}
        }]
      })
    )

/**
 * Idempotency-Key (DESIGN §5): the first response is kept 24 hours per (account,
 * key) with a hash of the request. The row is claimed by an insert-or-conflict, so
 * that of two concurrent requests exactly one runs: the other sees the in-flight
 * claim (409) or, once it completed, replays it. Only outcomes that reached the
 * upstream are kept (200 and 502); any other outcome releases the claim so the
 * caller can correct the request and retry with the same key.
 */
export class Idempotency extends Effect.Service<Idempotency>()("@platform/server/Idempotency", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prepared = makePrepared(yield* Effect.serviceOption(PgPool))

    const attempt = (accountId: number, key: string, hash: string) =>
      prepared(sql<Row>`
        with claim as (
          insert into idempotency_keys as k (developer_account_id, key, request_hash, expires_at)
          values (${accountId}, ${key}, ${hash}, now() + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}))
          on conflict (developer_account_id, key) do update set
            request_hash = excluded.request_hash, status = 'in_flight', response_status = null,
            response_body = null, response_headers = null, created_at = now(), expires_at = excluded.expires_at
          where k.expires_at < now()
             or (k.status = 'in_flight' and k.created_at < now() - make_interval(secs => ${STALE_IN_FLIGHT_SECONDS}))
          returning true as claimed
        )
        select true as claimed, null::text as request_hash, null::text as status, null::int as response_status,
               null::text as response_body
        from claim
        union all
        select false, request_hash, status, response_status, response_body from idempotency_keys
        where developer_account_id = ${accountId} and key = ${key} and not exists (select 1 from claim)`).pipe(
        Effect.orDie
      )

    /** Claims the key, or answers how the earlier request with it ended. */
    const claim = Effect.fn("Idempotency.claim")(function*(accountId: number, key: string, hash: string) {
      // An empty answer means another transaction inserted the key after this
      // statement's snapshot was taken; the next statement sees its row.
      for (let i = 0; i < 3; i++) {
        const [row] = yield* attempt(accountId, key, hash)
        if (row === undefined) continue
        if (row.claimed) return { _tag: "Claimed" } satisfies Claim as Claim
        if (row.request_hash !== hash) return yield* new IdempotencyKeyReused()
        if (row.status !== "completed" || row.response_status === null || row.response_body === null) {
          return yield* new IdempotencyKeyInFlight()
        }
        return { _tag: "Replay", response: { status: row.response_status, body: row.response_body } } satisfies Claim as Claim
      }
      return yield* new IdempotencyKeyInFlight()
    })

    const complete = (accountId: number, key: string, response: StoredResponse) =>
      sql`
        update idempotency_keys set status = 'completed', response_status = ${response.status},
          response_body = ${response.body}
        where developer_account_id = ${accountId} and key = ${key}`.pipe(Effect.orDie, Effect.asVoid)

    const release = (accountId: number, key: string) =>
      sql`delete from idempotency_keys where developer_account_id = ${accountId} and key = ${key} and status = 'in_flight'`
        .pipe(Effect.orDie, Effect.asVoid)

    return { claim, complete, release } as const
  })
}) {}
