import { SqlClient } from "@effect/sql"
import {
  type Broadcast,
  type BroadcastCreate,
  type BroadcastListQuery,
  type BroadcastRecipient,
  type BroadcastRecipientsLoad,
  type BroadcastRecipientsLoadResult,
  type BroadcastRecipientsPage,
  type BroadcastRecipientsQuery,
  type BroadcastSchedule,
  type BroadcastStatus,
  ChatOnly,
  NoRecipients,
  NotFound,
  PLAN_LIMITS,
  PlanForbidden,
  type RecipientStatus,
  StatusLocked,
  ValidationFailed
} from "@platform/shared"
import { Clock, Effect } from "effect"
import { firstPerKey } from "./broadcast-recipient-key.js"
import { RECIPIENT_ERROR_SQL, RECIPIENT_STATE_SQL } from "./broadcast-recipient-state.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { Idempotency, requestHash, type StoredResponse } from "../messages/idempotency.js"
import { Messages, type Replayed } from "../messages/messages.js"
import { cursorRange, toPage } from "../http/pagination.js"
import { checkTemplateParameters, type StoredTemplate } from "../templates/template-parameters.js"
import { recipientsFillTemplate, usableTemplate } from "./broadcast-template.js"
import { Usage } from "../accounts/usage.js"

interface BroadcastRow {
  readonly id: number
  readonly platform_channel_id: number
  readonly name: string
  readonly template_name: string
  readonly language_code: string
  readonly status: BroadcastStatus
  readonly recipient_count: number
  readonly quota_counted: boolean
  readonly scheduled_at: Date | null
  readonly started_at: Date | null
  readonly completed_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

const COLUMNS = `id, platform_channel_id, name, template_name, language_code, status, recipient_count, quota_counted,
  scheduled_at, started_at, completed_at, created_at, updated_at`

export const broadcastToWire = (row: BroadcastRow): Broadcast => ({
  id: row.id,
  name: row.name,
  platform_channel_id: row.platform_channel_id,
  template_name: row.template_name,
  language_code: row.language_code,
  status: row.status,
  recipient_count: row.recipient_count,
  scheduled_at: row.scheduled_at?.toISOString() ?? null,
  started_at: row.started_at?.toISOString() ?? null,
  completed_at: row.completed_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

/** SPEC §4.7: a schedule up to this far in the past is clock skew, not a past time. */
const SCHEDULE_SKEW_MS = 60_000

const RECIPIENT_STATES: ReadonlyArray<RecipientStatus> = ["pending", "sent", "delivered", "read", "responded", "failed"]

interface RecipientRow {
  readonly id: number
  readonly to: string
  readonly state: RecipientStatus
  readonly meta_message_id: string | null
  readonly error: string | null
  readonly updated_at: Date
}

const recipientToWire = (row: RecipientRow): BroadcastRecipient => ({
  id: row.id,
  to: row.to,
  status: row.state,
  message_id: row.meta_message_id,
  error: row.error,
  updated_at: row.updated_at.toISOString()
})

const locked = (row: BroadcastRow, operation: string) =>
  new StatusLocked({ status: row.status, message: `a ${row.status} broadcast cannot be ${operation}` })

const json = (value: unknown) => JSON.stringify(value)

type RuntimeComponents = NonNullable<BroadcastCreate["components"]>

/**
 * Broadcasts (SPEC §2.7, §3.3, §4.7; DESIGN §5): drafts, their recipients and the
 * transitions a developer asks for. Every state change locks the broadcast row, so
 * a schedule, a send and a cancel of the same broadcast are serialized; the send
 * cycle (broadcast-sender.ts) takes it from `sending` on.
 */
export class Broadcasts extends Effect.Service<Broadcasts>()("@platform/server/Broadcasts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channels = yield* ChannelCredentialsCache
    const usage = yield* Usage
    const idempotency = yield* Idempotency
    const messages = yield* Messages

    /** Free plan: every broadcast operation is 403 plan_forbidden (SPEC §7, §8). */
    const requirePlan = (accountId: number) =>
      Effect.flatMap(usage.planOf(accountId), (plan) =>
        PLAN_LIMITS[plan].broadcasts_enabled
          ? Effect.succeed(plan)
          : Effect.fail(new PlanForbidden({ message: `broadcasts are not available on the ${plan} plan; upgrade to lite or above` })))

    const find = (accountId: number, id: number, lock = false) =>
      sql<BroadcastRow>`select ${sql.literal(COLUMNS)} from broadcasts
        where id = ${id} and developer_account_id = ${accountId} ${sql.literal(lock ? "for update" : "")}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows[0] === undefined ? Effect.fail(new NotFound({ message: "broadcast not found" })) : Effect.succeed(rows[0])))
      )

    /**
     * Runs `run` under the Idempotency-Key rules of DESIGN §5 (as POST /messages):
     * `run` writes the kept response itself, in its own transaction; any failure
     * releases the claim so that the corrected request can reuse the key.
     */
    const withKey = <A, E, R>(
      accountId: number,
      key: string | undefined,
      route: string,
      body: unknown,
      run: (keep: (response: StoredResponse) => Effect.Effect<void>) => Effect.Effect<A, E, R>
    ) =>
      Effect.gen(function*() {
        if (key === undefined) return yield* run(() => Effect.void)
        const claim = yield* idempotency.claim(accountId, key, requestHash(route, body))
        if (claim._tag === "Replay") return { _tag: "Replayed", response: claim.response } satisfies Replayed as Replayed
        return yield* Effect.uninterruptibleMask((restore) =>
          restore(run((response) => idempotency.complete(accountId, key, response))).pipe(
            Effect.onExit((exit) => (exit._tag === "Success" ? Effect.void : idempotency.release(accountId, key)))
          )
        )
      })

    /**
     * Runtime components checked against the channel's copy of the template, as a template
     * send of POST /messages is: a mismatch is a 422 at the component now rather than a
     * failed recipient later. `at` places an issue of `components` in the request body.
     */
    const checkComponents = (
      template: StoredTemplate | undefined,
      items: ReadonlyArray<{ readonly components: RuntimeComponents | undefined; readonly at: ReadonlyArray<string | number> }>
    ) =>
      Effect.gen(function*() {
        if (template === undefined || items.every((i) => i.components === undefined)) return
        const issues = items.flatMap((item) =>
          item.components === undefined
            ? []
            : checkTemplateParameters(template, item.components).map((issue) => ({ ...issue, loc: ["body", ...item.at, ...issue.loc.slice(1)] }))
        )
        if (issues.length > 0) return yield* new ValidationFailed({ detail: issues })
      })

    /** The template of a draft or scheduled broadcast about to be scheduled or sent: usable, and filled for every recipient. */
    const checkTemplate = (accountId: number, row: BroadcastRow) =>
      Effect.flatMap(
        usableTemplate(messages, { id: row.platform_channel_id, account_id: accountId }, row.template_name, row.language_code),
        (template) => recipientsFillTemplate(sql, row, template)
      )

    /** The month's broadcasts quota, consumed once per broadcast (the first schedule or send). */
    const countQuota = (accountId: number, row: BroadcastRow) =>
      row.quota_counted ? Effect.void : usage.consume(accountId, "broadcasts").pipe(
        Effect.asVoid,
        Effect.catchTag("QuotaExceeded", (e) =>
          Effect.fail(new PlanForbidden({
            message: `the ${e.plan} plan's ${e.limit} broadcasts for this month are used up; upgrade the plan or wait for the reset on the 1st (UTC)`
          })))
      )

    const create = Effect.fn("Broadcasts.create")(function*(accountId: number, input: BroadcastCreate, key: string | undefined) {
      yield* requirePlan(accountId)
      return yield* withKey(accountId, key, "POST /platform/v1/broadcasts", input, (keep) =>
        Effect.gen(function*() {
          const channel = yield* channels.get(accountId, input.channel_id)
          if (channel.type !== "chat") {
            return yield* new ChatOnly({ message: `broadcasts run on chat channels only; channel ${channel.id} is a social channel` })
          }
          const template = yield* usableTemplate(messages, channel, input.template_name, input.language_code)
          yield* checkComponents(template, [{ components: input.components, at: [] }])
          return yield* sql.withTransaction(Effect.gen(function*() {
            const [row] = yield* sql<BroadcastRow>`
              insert into broadcasts (developer_account_id, platform_channel_id, name, template_name, language_code, components)
              values (${accountId}, ${channel.id}, ${input.name}, ${input.template_name}, ${input.language_code},
                ${input.components === undefined ? null : json(input.components)}::jsonb)
              returning ${sql.literal(COLUMNS)}`
            const broadcast = broadcastToWire(row!)
            yield* keep({ status: 201, body: json(broadcast) })
            return broadcast
          })).pipe(Effect.orDie)
        }))
    })

    const list = Effect.fn("Broadcasts.list")(function*(accountId: number, query: BroadcastListQuery) {
      yield* requirePlan(accountId)
      const range = yield* cursorRange(query)
      const rows = yield* sql<BroadcastRow>`select ${sql.literal(COLUMNS)} from broadcasts
        where developer_account_id = ${accountId} and id < ${range.below} and id > ${range.above}
          and (${query.channel_id ?? null}::bigint is null or platform_channel_id = ${query.channel_id ?? null})
          and (${query.status ?? null}::text is null or status = ${query.status ?? null})
        order by ${sql.literal(range.direction === "before" ? "id asc" : "id desc")} limit ${query.limit + 1}`.pipe(Effect.orDie)
      return toPage(rows, query.limit, range.direction, broadcastToWire)
    })

    const get = Effect.fn("Broadcasts.get")(function*(accountId: number, id: number) {
      yield* requirePlan(accountId)
      return broadcastToWire(yield* find(accountId, id))
    })

    /**
     * Adds the recipients not loaded yet to a draft or scheduled broadcast: one per
     * person (broadcast-recipient-key.ts), the first `to` given kept as given, within
     * the call and against those loaded before. The plan's recipients per broadcast
     * is checked against the locked row, so concurrent loads can never overshoot it
     * together, and counts only those new people.
     */
    const addRecipients = Effect.fn("Broadcasts.addRecipients")(
      function*(accountId: number, id: number, input: BroadcastRecipientsLoad) {
        const plan = yield* requirePlan(accountId)
        const limit = PLAN_LIMITS[plan].broadcast_recipients_limit
        return yield* sql.withTransaction(Effect.gen(function*() {
          const row = yield* find(accountId, id, true)
          if (row.status !== "draft" && row.status !== "scheduled") return yield* locked(row, "given recipients")
          const [channel] = yield* sql<{ type: "chat" | "social" }>`select type from platform_channels
            where id = ${row.platform_channel_id}`.pipe(Effect.orDie)
          const unique = firstPerKey(channel!.type, input.recipients)
          const keys = unique.map((r) => r.key)
          const components = unique.map((r) => (r.components === undefined ? null : json(r.components)))
          const { template } = yield* messages.templateStanding(
            { id: row.platform_channel_id, account_id: accountId },
            row.template_name,
            row.language_code
          )
          yield* checkComponents(template, input.recipients.map((r, i) => ({ components: r.components, at: ["recipients", i] })))
          const [known] = yield* sql<{ n: number }>`select count(*)::int as n from broadcast_recipients
            where broadcast_id = ${id} and to_key = any(${keys}::text[])`.pipe(Effect.orDie)
          const fresh = keys.length - known!.n
          if (row.recipient_count + fresh > limit) {
            return yield* new ValidationFailed({
              detail: [{
                loc: ["body", "recipients"],
                msg: `the ${plan} plan allows ${limit} recipients per broadcast; this broadcast has ${row.recipient_count} ` +
                  `and this call would add ${fresh}`,
                type: "value_error",
                input: input.recipients.length,
                ctx: { limit, recipient_count: row.recipient_count, adding: fresh }
              }]
            })
          }
          const [counted] = yield* sql<{ added: number; recipient_count: number }>`
            with added as (
              insert into broadcast_recipients (broadcast_id, "to", to_key, components)
              select ${id}, u.t, u.k, u.c::jsonb
              from unnest(${unique.map((r) => r.to)}::text[], ${keys}::text[], ${components}::text[]) with ordinality as u(t, k, c, n)
              order by u.n
              on conflict (broadcast_id, to_key) do nothing
              returning 1
            )
            update broadcasts set recipient_count = recipient_count + (select count(*) from added), updated_at = now()
            where id = ${id}
            returning (select count(*)::int from added) as added, recipient_count`.pipe(Effect.orDie)
          return {
            added: counted!.added,
            skipped: input.recipients.length - counted!.added,
            recipient_count: counted!.recipient_count
          } satisfies BroadcastRecipientsLoadResult
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      }
    )

    /** Per-recipient state and error (broadcast-recipient-state.ts). */
    const recipientStates = (broadcastId: number, channelId: number) =>
      sql`
        select r.id, r."to", r.meta_message_id, r.updated_at,
          ${sql.unsafe(RECIPIENT_ERROR_SQL)} as error,
          ${sql.unsafe(RECIPIENT_STATE_SQL)} as state
        from broadcast_recipients r
        left join messages m on m.platform_channel_id = ${channelId} and m.meta_message_id = r.meta_message_id
        where r.broadcast_id = ${broadcastId}`

    const listRecipients = Effect.fn("Broadcasts.listRecipients")(
      function*(accountId: number, id: number, query: BroadcastRecipientsQuery) {
        yield* requirePlan(accountId)
        const broadcast = yield* find(accountId, id)
        const range = yield* cursorRange(query)
        const states = recipientStates(broadcast.id, broadcast.platform_channel_id)
        const rows = yield* sql<RecipientRow>`
          with s as (${states})
          select * from s
          where id < ${range.below} and id > ${range.above} and (${query.status ?? null}::text is null or state = ${query.status ?? null})
          order by ${sql.literal(range.direction === "before" ? "id asc" : "id desc")} limit ${query.limit + 1}`.pipe(Effect.orDie)
        const totals = yield* sql<{ state: RecipientStatus; n: number }>`
          with s as (${states}) select state, count(*)::int as n from s group by state`.pipe(Effect.orDie)
        const counts = Object.fromEntries(
          RECIPIENT_STATES.map((state) => [state, totals.find((t) => t.state === state)?.n ?? 0])
        ) as BroadcastRecipientsPage["counts"]
        return { ...toPage(rows, query.limit, range.direction, recipientToWire), counts } satisfies BroadcastRecipientsPage
      }
    )

    /** draft → scheduled (SPEC §3.3): recipients exist and scheduled_at is not clearly past. */
    const schedule = Effect.fn("Broadcasts.schedule")(function*(accountId: number, id: number, input: BroadcastSchedule) {
      yield* requirePlan(accountId)
      const now = yield* Clock.currentTimeMillis
      const at = new Date(input.scheduled_at)
      return yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* find(accountId, id, true)
        if (row.status !== "draft") return yield* locked(row, "scheduled")
        if (row.recipient_count === 0) return yield* new NoRecipients()
        yield* checkTemplate(accountId, row)
        if (at.getTime() < now - SCHEDULE_SKEW_MS) {
          return yield* new ValidationFailed({
            detail: [{
              loc: ["body", "scheduled_at"],
              msg: "must be in the future (60 seconds of clock skew are tolerated)",
              type: "value_error",
              input: input.scheduled_at,
              ctx: { now: new Date(now).toISOString() }
            }]
          })
        }
        yield* countQuota(accountId, row)
        const [updated] = yield* sql<BroadcastRow>`update broadcasts
          set status = 'scheduled', scheduled_at = ${at}, quota_counted = true, updated_at = now()
          where id = ${id} returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
        return broadcastToWire(updated!)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** draft or scheduled → sending (SPEC §3.3); the send cycle takes it on its next tick. */
    const send = Effect.fn("Broadcasts.send")(function*(accountId: number, id: number, key: string | undefined) {
      yield* requirePlan(accountId)
      return yield* withKey(accountId, key, `POST /platform/v1/broadcasts/${id}/send`, {}, (keep) =>
        sql.withTransaction(Effect.gen(function*() {
          const row = yield* find(accountId, id, true)
          if (row.status !== "draft" && row.status !== "scheduled") return yield* locked(row, "sent")
          if (row.recipient_count === 0) return yield* new NoRecipients()
          yield* checkTemplate(accountId, row)
          yield* countQuota(accountId, row)
          const [updated] = yield* sql<BroadcastRow>`update broadcasts
            set status = 'sending', started_at = now(), completed_at = null, quota_counted = true, updated_at = now()
            where id = ${id} returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
          const broadcast = broadcastToWire(updated!)
          yield* keep({ status: 202, body: json(broadcast) })
          return broadcast
        })).pipe(Effect.catchTag("SqlError", Effect.die)))
    })

    /**
     * scheduled or sending → draft (DESIGN §5). Recipients already sent keep their
     * state; the send cycle claims only recipients of sending broadcasts, so nothing
     * more is sent (a send already in flight at this moment still completes).
     */
    const cancel = Effect.fn("Broadcasts.cancel")(function*(accountId: number, id: number) {
      yield* requirePlan(accountId)
      return yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* find(accountId, id, true)
        if (row.status !== "scheduled" && row.status !== "sending") return yield* locked(row, "cancelled")
        const [updated] = yield* sql<BroadcastRow>`update broadcasts
          set status = 'draft', scheduled_at = null, updated_at = now()
          where id = ${id} returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
        return broadcastToWire(updated!)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    return { create, list, get, addRecipients, listRecipients, schedule, send, cancel } as const
  }),
  dependencies: [ChannelCredentialsCache.Default, Idempotency.Default, Messages.Default, Usage.Default]
}) {}
