import { Effect } from "effect"
import { currentPeriod } from "../../src/db/usage-period.js"
import { approvedTemplate, request, type Setup, setup as messagingSetup, sql } from "../messages/support.js"

export { MessagingTestServer, request, sandboxSends, type Setup, sql } from "../messages/support.js"

/** The approved template (no parameters) every draft of these tests sends unless it names another. */
export const BROADCAST_TEMPLATE = "promo_update"

/** A messaging setup whose chat channel has BROADCAST_TEMPLATE, approved (locally and in the sandbox). */
export const setup = (label = "bc") =>
  Effect.tap(messagingSetup(label), (s) => approvedTemplate(s, BROADCAST_TEMPLATE))

/** `setup(label)` once per test file: the first test to ask builds it, the others share it. */
export const sharedSetup = (label: string) => {
  let ready: Setup | undefined
  return Effect.suspend(() => (ready ? Effect.succeed(ready) : setup(label).pipe(Effect.tap((s) => (ready = s)))))
}

let n = 0
/** A recipient number no other test of the file uses. */
export const freshTo = () => `1555044${String(n++).padStart(4, "0")}`
export const freshKey = () => `bk-${Date.now().toString(36)}-${n++}`

/** POST /platform/dashboard/billing/plan as the account's owner. */
export const setPlan = (dev: Setup["dev"], plan: string) =>
  request("POST", "/platform/dashboard/billing/plan", { cookie: dev.cookie, body: { plan } })

/** A call to `/platform/v1/broadcasts<path>` with the setup's key. */
export const api = (s: Setup, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  request(method, `/platform/v1/broadcasts${path}`, { key: s.key, headers, ...(body === undefined ? {} : { body }) })

export const draftBody = (s: Setup, fields: Record<string, unknown> = {}) => ({
  name: "May promo",
  channel_id: s.chat,
  template_name: BROADCAST_TEMPLATE,
  language_code: "en_US",
  ...fields
})

/** A draft with `tos` loaded; returns its id. */
export const draftWith = (s: Setup, tos: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const created = yield* api(s, "POST", "", draftBody(s))
    if (created.status !== 201) throw new Error(`create ${created.status} ${created.text}`)
    const id = created.body.id as number
    if (tos.length > 0) {
      const loaded = yield* api(s, "POST", `/${id}/recipients`, { recipients: tos.map((to) => ({ to })) })
      if (loaded.status !== 200) throw new Error(`load ${loaded.status} ${loaded.text}`)
    }
    return id
  })

export const usageOf = (accountId: number, metric: string) =>
  Effect.flatMap(sql, (q) =>
    q<{ used: number }>`select used from usage_counters
      where developer_account_id = ${accountId} and metric = ${metric} and period = ${currentPeriod()}::date`
  ).pipe(Effect.map((rows) => Number(rows[0]?.used ?? 0)))

export const setUsage = (accountId: number, metric: string, used: number) =>
  Effect.flatMap(sql, (q) =>
    q`insert into usage_counters (developer_account_id, period, metric, used)
      values (${accountId}, ${currentPeriod()}::date, ${metric}, ${used})
      on conflict (developer_account_id, period, metric) do update set used = excluded.used`)

/** The stored recipients of a broadcast, oldest first. */
export const recipientRows = (id: number) =>
  Effect.flatMap(sql, (q) =>
    q<{ id: number; to: string; status: string; meta_message_id: string | null; error: any; claimed_until: Date | null }>`
      select id, "to", status, meta_message_id, error, claimed_until from broadcast_recipients
      where broadcast_id = ${id} order by id`)

export const broadcastRow = (id: number) =>
  Effect.flatMap(sql, (q) => q<{ status: string; started_at: Date | null; completed_at: Date | null }>`
    select status, started_at, completed_at from broadcasts where id = ${id}`).pipe(Effect.map((rows) => rows[0]!))
