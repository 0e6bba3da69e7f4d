import type { SqlClient, SqlError } from "@effect/sql"
import { NotFound, type TemplateCreate, type TemplateListQuery } from "@platform/shared"
import { Effect } from "effect"
import { SUBMITTING_MS, TEMPLATE_EDIT_MS } from "./template-rules.js"
import { type rowFromUpstream, TEMPLATE_COLUMNS, type TemplateRow } from "./template-rows.js"

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))

const isUniqueViolation = (error: SqlError.SqlError) => (error.cause as { code?: string } | undefined)?.code === "23505"

/** The content an edit leaves on its row. */
export interface EditedContent {
  readonly category: string
  readonly body_text: string
  readonly variables: unknown
  readonly components: ReadonlyArray<unknown>
  readonly parameter_format: string | null
  readonly header_format: string | null
}

/** A template as Meta lists it, in the row's values (rowFromUpstream). */
export type ListedRow = NonNullable<ReturnType<typeof rowFromUpstream>>

export const findTemplate = (sql: SqlClient.SqlClient, accountId: number, id: number) =>
  sql<TemplateRow>`select ${sql.unsafe(TEMPLATE_COLUMNS)} from templates
    where id = ${id} and developer_account_id = ${accountId}`.pipe(
    Effect.orDie,
    Effect.flatMap(([row]) => row === undefined ? Effect.fail(new NotFound({ message: "template not found" })) : Effect.succeed(row))
  )

export const listTemplates = (sql: SqlClient.SqlClient, accountId: number, query: TemplateListQuery) => {
  const clauses = [sql`developer_account_id = ${accountId}`]
  if (query.channel_id !== undefined) clauses.push(sql`platform_channel_id = ${query.channel_id}`)
  if (query.name !== undefined) clauses.push(sql`name = ${query.name}`)
  if (query.language_code !== undefined) clauses.push(sql`language_code = ${query.language_code}`)
  if (query.category !== undefined) clauses.push(sql`category = ${query.category.toLowerCase()}`)
  if (query.status !== undefined) clauses.push(sql`lower(meta_status) = ${query.status.toLowerCase()}`)
  if (query.is_active !== undefined) clauses.push(sql`is_active = ${query.is_active}`)
  return sql<TemplateRow>`select ${sql.unsafe(TEMPLATE_COLUMNS)} from templates
    where ${sql.and(clauses)} order by id desc`.pipe(Effect.orDie)
}

/**
 * A create's row, pending and without Meta's id until the submit answers; its id, or null
 * when the channel already has a template of this name and language (the unique key).
 */
export const insertPending = (
  sql: SqlClient.SqlClient,
  accountId: number,
  channelId: number,
  input: TemplateCreate,
  columns: { readonly body_text: string; readonly variables: ReadonlyArray<string>; readonly header_format: string | null }
) =>
  sql<{ id: number }>`
    insert into templates (developer_account_id, platform_channel_id, name, language_code, category, body_text, variables,
      components, parameter_format, header_format, meta_status)
    values (${accountId}, ${channelId}, ${input.name}, ${input.language_code}, ${input.category}, ${columns.body_text},
      ${json(columns.variables)}::jsonb, ${json(input.components)}::jsonb, ${input.parameter_format ?? null},
      ${columns.header_format}, 'pending')
    returning id`.pipe(
    Effect.map(([row]) => row!.id as number | null),
    Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.succeed(null) : Effect.die(e)))
  )

/** A create the upstream refused leaves nothing behind. */
export const discardPending = (sql: SqlClient.SqlClient, id: number) =>
  sql`delete from templates where id = ${id}`.pipe(Effect.orDie)

/** The submit's answer on the create's row. A callback already applied (it sets the upstream id) has the newer status: it stays. */
export const recordSubmitted = (
  sql: SqlClient.SqlClient,
  id: number,
  submitted: { readonly id: string; readonly status: string; readonly category: string }
) =>
  sql<TemplateRow>`
    update templates set
      meta_status = case when meta_template_id is null then ${submitted.status.toLowerCase()} else meta_status end,
      meta_category = coalesce(meta_category, ${submitted.category.toLowerCase()}),
      meta_template_id = coalesce(meta_template_id, ${submitted.id}),
      updated_at = now()
    where id = ${id}
    returning ${sql.unsafe(TEMPLATE_COLUMNS)}`.pipe(Effect.orDie, Effect.map(([row]) => row))

/**
 * Marks the row pending under an edit started at `startedAt`, keeping the status it replaced;
 * false when it is pending already or under an edit younger than TEMPLATE_EDIT_MS.
 */
export const startEdit = (sql: SqlClient.SqlClient, accountId: number, id: number, startedAt: Date) =>
  sql`update templates set meta_status = 'pending', edit_started_at = ${startedAt},
      edit_previous_status = meta_status, updated_at = now()
    where id = ${id} and developer_account_id = ${accountId} and lower(coalesce(meta_status, '')) <> 'pending'
      and (edit_started_at is null or edit_started_at <= ${new Date(startedAt.getTime() - TEMPLATE_EDIT_MS)})
    returning id`.pipe(Effect.orDie, Effect.map((claimed) => claimed.length > 0))

/**
 * Ends the edit (or settle) holding the lease `lease` without an answer from Meta: the row goes
 * back to the status the edit replaced, unless a callback has moved it on from pending meanwhile.
 */
export const releaseEdit = (sql: SqlClient.SqlClient, id: number, lease: Date) =>
  sql`update templates set
      meta_status = case when meta_status = 'pending' then edit_previous_status else meta_status end,
      edit_started_at = null, edit_previous_status = null, updated_at = now()
    where id = ${id} and edit_started_at = ${lease}`.pipe(Effect.orDie, Effect.asVoid)

/**
 * The edit's content and Meta's answer. Accepted, the status is the submit's only while no
 * callback has moved the row on from pending; rejected, it is rejected with the reason.
 */
export const recordEdit = (
  sql: SqlClient.SqlClient,
  accountId: number,
  id: number,
  content: EditedContent,
  outcome: {
    readonly rejected: boolean
    readonly meta_template_id: string | null
    readonly meta_status: string
    readonly meta_category: string | null
    readonly reason: string | null
  }
) =>
  sql<TemplateRow>`
    update templates set
      body_text = ${content.body_text},
      variables = ${json(content.variables)}::jsonb,
      category = ${content.category},
      components = ${json(content.components)}::jsonb,
      parameter_format = ${content.parameter_format},
      header_format = ${content.header_format},
      meta_status = ${outcome.rejected ? sql`${outcome.meta_status}` : sql`case when meta_status = 'pending' then ${outcome.meta_status} else meta_status end`},
      meta_category = ${outcome.meta_category},
      meta_template_id = coalesce(meta_template_id, ${outcome.meta_template_id}),
      meta_rejection_reason = ${outcome.rejected ? sql`${outcome.reason}` : sql`case when meta_status = 'pending' then null else meta_rejection_reason end`},
      edit_started_at = null, edit_previous_status = null, updated_at = now()
    where id = ${id} and developer_account_id = ${accountId}
    returning ${sql.unsafe(TEMPLATE_COLUMNS)}`.pipe(Effect.orDie, Effect.map(([row]) => row))

export const deleteTemplate = (sql: SqlClient.SqlClient, accountId: number, id: number) =>
  sql`delete from templates where id = ${id} and developer_account_id = ${accountId}`.pipe(Effect.orDie, Effect.asVoid)

/**
 * Meta's templates of a channel upserted in one statement by (channel, name, language_code).
 * A row is updated only when its snapshot differs, so a second sync of the same upstream
 * state updates nothing, and never under a live edit (started after `liveSince`): Meta may
 * not have the edit yet, and its older snapshot would unlock the row (a second PATCH let
 * through) and make the edit's own answer look like a later callback's. A dead edit's row is settled.
 */
export const upsertListed = (
  sql: SqlClient.SqlClient,
  accountId: number,
  channelId: number,
  rows: ReadonlyArray<ListedRow>,
  liveSince: Date
) =>
  rows.length === 0 ? Effect.succeed([]) : sql<{ inserted: boolean }>`
    insert into templates as t (developer_account_id, platform_channel_id, name, language_code, category, body_text,
      variables, components, parameter_format, header_format, meta_status, meta_category, meta_template_id,
      meta_rejection_reason)
    select ${accountId}, ${channelId}, x.name, x.language_code, x.category, x.body_text, x.variables, x.components,
      x.parameter_format, x.header_format, x.meta_status, x.meta_category, x.meta_template_id, x.meta_rejection_reason
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(name text, language_code text, category text,
      body_text text, variables jsonb, components jsonb, parameter_format text, header_format text, meta_status text,
      meta_category text, meta_template_id text, meta_rejection_reason text)
    on conflict (platform_channel_id, name, language_code) do update set
      category = excluded.category, body_text = excluded.body_text, variables = excluded.variables,
      components = excluded.components, parameter_format = excluded.parameter_format,
      header_format = excluded.header_format, meta_status = excluded.meta_status,
      meta_category = excluded.meta_category, meta_template_id = excluded.meta_template_id,
      meta_rejection_reason = excluded.meta_rejection_reason, edit_started_at = null, edit_previous_status = null,
      updated_at = now()
    where (t.edit_started_at is null or t.edit_started_at <= ${liveSince})
      and ((t.category, t.body_text, t.variables, t.components, t.parameter_format, t.header_format, t.meta_status,
        t.meta_category, t.meta_template_id, t.meta_rejection_reason)
      is distinct from (excluded.category, excluded.body_text, excluded.variables, excluded.components,
        excluded.parameter_format, excluded.header_format, excluded.meta_status, excluded.meta_category,
        excluded.meta_template_id, excluded.meta_rejection_reason) or t.edit_started_at is not null)
    returning (xmax = 0) as inserted`.pipe(Effect.orDie)

/** The columns a settle needs of the row it took. */
export interface Taken {
  readonly id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number | null
  readonly name: string
  readonly language_code: string
  readonly meta_template_id: string | null
  readonly edit_previous_status: string | null
}
const TAKEN = "id, developer_account_id, platform_channel_id, name, language_code, meta_template_id, edit_previous_status"

/**
 * Takes one dead PATCH or POST under a lease (`edit_started_at` moved to now): another process's
 * sweep skips it, a PATCH meanwhile is 409, and a sweep that dies too leaves it to the next one
 * 2 minutes on. A dead edit is one whose start is older than TEMPLATE_EDIT_MS. A dead create is a
 * row still pending without Meta's id, older than SUBMITTING_MS and under no edit: its lease
 * records `pending` as the status it replaced, which no edit can (an edit starts only from a
 * status other than pending), so a create whose sweep died is still known for one.
 */
export const takeStale = (sql: SqlClient.SqlClient, now: number, lease: Date) =>
  Effect.gen(function*() {
    const [edit] = yield* sql<Taken>`update templates set edit_started_at = ${lease}
      where id = (select id from templates where edit_started_at <= ${new Date(now - TEMPLATE_EDIT_MS)}
        order by edit_started_at limit 1 for update skip locked)
      returning ${sql.unsafe(TAKEN)}`
    if (edit !== undefined) return edit
    const [created] = yield* sql<Taken>`update templates set edit_started_at = ${lease}, edit_previous_status = 'pending'
      where id = (select id from templates
        where meta_template_id is null and edit_started_at is null and lower(meta_status) = 'pending'
          and created_at <= ${new Date(now - SUBMITTING_MS)}
        order by created_at limit 1 for update skip locked)
      returning ${sql.unsafe(TAKEN)}`
    return created
  }).pipe(Effect.orDie)

/** A dead create Meta does not have is deleted, unless a callback has given it Meta's id meanwhile. */
export const deleteDeadCreate = (sql: SqlClient.SqlClient, id: number, lease: Date) =>
  sql`delete from templates where id = ${id} and edit_started_at = ${lease}
    and meta_template_id is null and lower(meta_status) = 'pending'`.pipe(Effect.orDie, Effect.asVoid)

/**
 * A dead edit or create settled from Meta's record of it: the status and rejection reason unless
 * a callback has moved the row on from pending since, and the content when the platform can model it.
 */
export const recordFound = (
  sql: SqlClient.SqlClient,
  id: number,
  lease: Date,
  found: {
    readonly status: string
    readonly reason: string | null
    readonly category: string
    readonly meta_template_id: string
    readonly content: ListedRow | undefined
  }
) => {
  const content = found.content
  return sql`update templates set
      meta_status = case when meta_status = 'pending' then ${found.status} else meta_status end,
      meta_rejection_reason = case when meta_status = 'pending' then ${found.reason} else meta_rejection_reason end,
      meta_category = ${found.category},
      meta_template_id = coalesce(meta_template_id, ${found.meta_template_id}),
      ${content === undefined ? sql`` : sql`category = ${content.category}, body_text = ${content.body_text},
        variables = ${json(content.variables)}::jsonb, components = ${json(content.components)}::jsonb,
        parameter_format = ${content.parameter_format}, header_format = ${content.header_format},`}
      edit_started_at = null, edit_previous_status = null, updated_at = now()
    where id = ${id} and edit_started_at = ${lease}`.pipe(Effect.orDie, Effect.asVoid)
}
