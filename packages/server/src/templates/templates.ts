import { SqlClient, type SqlError } from "@effect/sql"
import {
  type CardComponent,
  ChannelUnusable,
  type HeaderMediaResult,
  LegacyRowSupplyComponents,
  NotFound,
  StatusLocked,
  type TemplateComponent,
  templateComponentIssues,
  type TemplateCreate,
  type TemplateListQuery,
  type TemplatePatch,
  type TemplateSync,
  type TemplateSyncResult,
  UpstreamFailure,
  ValidationFailed
} from "@platform/shared"
import type { Multipart } from "@effect/platform"
import { Clock, Effect, Either, Fiber, Option, type Stream } from "effect"
import { toSendErrorBody, type UpstreamError, type UpstreamCallError, type UpstreamRequestInvalid } from "../upstream/errors.js"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { readHeaderMediaForm } from "./template-header-media.js"
import { placeholdersOf } from "./template-parameters.js"
import { derivedColumns, rowFromUpstream, TEMPLATE_COLUMNS, templateToWire, type TemplateRow } from "./template-rows.js"

const issue = (loc: ReadonlyArray<PropertyKey>, msg: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new ValidationFailed({
    detail: [{ loc: ["body", ...loc.map((k) => (typeof k === "number" ? k : String(k)))], msg, type: "value_error", input: input ?? null, ctx }]
  })

/** Meta's rule for template names; checked here so a bad name is a 422 at `name`, not a 502. */
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/

const isUniqueViolation = (error: SqlError.SqlError) => (error.cause as { code?: string } | undefined)?.code === "23505"

/**
 * 502 `upstream_error` whose message is the upstream's own text (SPEC §4.2), with its
 * classification and Meta fields as on the other routes, all scrubbed of tokens by the
 * gateway; a call refused before reaching the upstream is an unusable channel.
 */
const upstreamFailed = (e: UpstreamCallError | UpstreamRequestInvalid) => {
  if (e._tag === "UpstreamRequestInvalid") return new ChannelUnusable({ message: e.message })
  const { message, ...fields } = toSendErrorBody(e)
  return new UpstreamFailure({ message, ...fields })
}

/**
 * The upstream refused the content of an edit (Graph code 100 and the like, a 4xx):
 * SPEC §3.1 makes that a rejected row, not an error. Authentication, permissions, rate
 * limits and server trouble stay 502s: they say nothing about the template.
 */
const isEditRejection = (e: UpstreamCallError | UpstreamRequestInvalid): e is UpstreamError =>
  e._tag === "UpstreamError" && e.http_status !== null && e.http_status >= 400 && e.http_status < 500 &&
  ["invalid_parameter", "unknown", "template_missing", "template_param_mismatch"].includes(e.kind)

/** Graph's "message template not found" on delete: already gone upstream. */
const isTemplateMissing = (e: UpstreamCallError | UpstreamRequestInvalid) =>
  e._tag === "UpstreamError" && (e.http_status === 404 || e.meta_subcode === 2593002)

/** 422 at each component issue (paths relative to `components`). */
const componentIssues = (issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>) =>
  new ValidationFailed({
    detail: issues.map((i) => ({
      loc: ["body", "components", ...i.path.map((k) => (typeof k === "number" ? k : String(k)))],
      msg: i.message,
      type: "value_error",
      input: null,
      ctx: {}
    }))
  })

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))

const lower = (s: string | null) => s?.toLowerCase() ?? null

/**
 * Runs `effect` to its end even when the caller is interrupted (a client hanging up): the
 * caller waits for it, and the effect itself stays interruptible inside, so the gateway's
 * deadlines still cut a slow upstream call short. A daemon: a child fiber would receive the
 * caller's interruption too.
 */
const toTheEnd = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.uninterruptibleMask((restore) => Effect.flatMap(Effect.forkDaemon(restore(effect)), Fiber.join))

/**
 * Meta reads the placeholders of a template that is not NAMED as positional ({{1}}, {{2}}, ...):
 * a named one there is refused upstream, so it is a 422 at the BODY text (also a card's) here.
 */
const namedInPositional = (components: ReadonlyArray<TemplateComponent>, parameterFormat: string | null | undefined) => {
  const issues: Array<{ readonly path: ReadonlyArray<string | number>; readonly message: string }> = []
  if (parameterFormat === "NAMED") return issues
  const check = (c: TemplateComponent | CardComponent, at: ReadonlyArray<string | number>) => {
    if (c.type !== "BODY") return
    const named = placeholdersOf(c.text).filter((p) => !/^\d+$/.test(p))
    if (named.length > 0) issues.push({ path: [...at, "text"], message: positionalMessage(named[0]!) })
  }
  components.forEach((c, i) => {
    check(c, [i])
    if (c.type === "CAROUSEL") c.cards.forEach((card, k) => card.components.forEach((cc, j) => check(cc, [i, "cards", k, "components", j])))
  })
  return issues
}

const positionalMessage = (name: string) =>
  `{{${name}}} is a named placeholder: a POSITIONAL template uses {{1}}, {{2}}, ...; set parameter_format NAMED to use names`

/** How long a create may wait for the upstream (gateway deadline 10 s, 3 retries with backoff), with room to spare. */
const SUBMITTING_MS = 120_000

/**
 * How long a PATCH may hold its template pending before it counts as dead. From its mark to its
 * final write a live edit makes one upstream call (a POST: 10 s deadline, never retried) and
 * two statements; 2 minutes is far past that even on a slow database, so an edit older than
 * this is one whose process died, and the sweep (or a sync) settles it. Shorter would let the
 * sweep race a live edit; longer only keeps a dead one's template locked longer.
 */
export const TEMPLATE_EDIT_MS = 120_000

/**
 * Message templates (SPEC §2.1, §3.1, §4.2). The upstream is the authority on a
 * template's status: every create and edit is submitted there, and the row
 * keeps the snapshot it answered; later changes come as status callbacks (inbound).
 */
export class Templates extends Effect.Service<Templates>()("@platform/server/Templates", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channels = yield* ChannelCredentialsCache
    const upstream = yield* Upstream

    /** The chat channel a template request names in its body: missing, another account's or social is 422 at channel_id. */
    const bodyChannel = (accountId: number, channelId: number) =>
      channels.get(accountId, channelId).pipe(
        Effect.catchTag("NotFound", () => Effect.fail(issue(["channel_id"], `channel ${channelId} not found`, channelId))),
        Effect.filterOrFail(
          (channel) => channel.type === "chat",
          () => issue(["channel_id"], `channel ${channelId} is a social channel: templates exist only on chat channels`, channelId)
        )
      )

    /** The channel of a stored template; gone or unusable is 422 channel_unusable. */
    const rowChannel = (accountId: number, row: TemplateRow) =>
      row.platform_channel_id === null
        ? Effect.fail(new ChannelUnusable({ message: "the template has no channel" }))
        : channels.get(accountId, row.platform_channel_id).pipe(
          Effect.catchTag("NotFound", () => Effect.fail(new ChannelUnusable({ message: "the template's channel no longer exists" })))
        )

    const find = (accountId: number, id: number) =>
      sql<TemplateRow>`select ${sql.unsafe(TEMPLATE_COLUMNS)} from templates
        where id = ${id} and developer_account_id = ${accountId}`.pipe(
        Effect.orDie,
        Effect.flatMap(([row]) => row === undefined ? Effect.fail(new NotFound({ message: "template not found" })) : Effect.succeed(row))
      )

    const duplicate = (input: { readonly name: string; readonly language_code: string; readonly channel_id: number }) =>
      issue(
        ["name"],
        `channel ${input.channel_id} already has a template ${input.name} in ${input.language_code}; edit it with PATCH or pick another name`,
        input.name
      )

    const create = Effect.fn("Templates.create")(function*(accountId: number, input: TemplateCreate) {
      if (!TEMPLATE_NAME.test(input.name)) {
        return yield* issue(["name"], "must be 1 to 512 lower case letters, digits and underscores", input.name)
      }
      const channel = yield* bodyChannel(accountId, input.channel_id)
      let components: ReadonlyArray<unknown>
      let columns: { readonly body_text: string; readonly variables: ReadonlyArray<string>; readonly header_format: string | null }
      if (input.components === undefined) {
        const bodyText = input.body_text ?? ""
        const variables = input.variables ?? []
        const placeholders = placeholdersOf(bodyText)
        const named = placeholders.find((p) => !/^\d+$/.test(p))
        if (named !== undefined) return yield* issue(["body_text"], positionalMessage(named), input.body_text)
        if (placeholders.length !== variables.length) {
          return yield* issue(
            ["variables"],
            `body_text has ${placeholders.length} placeholder(s)${placeholders.length > 0 ? ` (${placeholders.map((p) => `{{${p}}}`).join(", ")})` : ""}: variables gives one example value for each, in order`,
            input.variables,
            { expected: placeholders.length }
          )
        }
        components = [{ type: "BODY", text: bodyText, ...(variables.length > 0 ? { example: { body_text: [variables] } } : {}) }]
        columns = { body_text: bodyText, variables, header_format: null }
      } else {
        const named = namedInPositional(input.components, input.parameter_format)
        if (named.length > 0) return yield* componentIssues(named)
        components = input.components
        columns = derivedColumns(input.components, input.body_text)
      }
      // Run to its end from the insert to the final update: a client that hangs up mid-submit
      // would otherwise leave the row pending without its upstream id (DELETE refused, a retried
      // create a duplicate) while the upstream may well have the template.
      return yield* toTheEnd(Effect.gen(function*() {
        // The row is written (pending, no upstream id yet) before the submit: a status callback that
        // beats the submit's answer then finds it by name and language, and the unique key refuses a
        // second create of the same template before anything reaches the upstream.
        const [pending] = yield* sql<{ id: number }>`
          insert into templates (developer_account_id, platform_channel_id, name, language_code, category, body_text, variables,
            components, parameter_format, header_format, meta_status)
          values (${accountId}, ${channel.id}, ${input.name}, ${input.language_code}, ${input.category}, ${columns.body_text},
            ${json(columns.variables)}::jsonb, ${json(input.components)}::jsonb, ${input.parameter_format ?? null},
            ${columns.header_format}, 'pending')
          returning id`.pipe(
          Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.fail(duplicate(input)) : Effect.die(e)))
        )
        const submitted = yield* upstream.createTemplate(channel.creds, {
          name: input.name,
          language: input.language_code,
          category: input.category,
          components,
          parameter_format: input.parameter_format
        }).pipe(
          Effect.tapError(() => sql`delete from templates where id = ${pending!.id}`.pipe(Effect.orDie)),
          Effect.mapError(upstreamFailed)
        )
        // A callback already applied (it sets the upstream id) has the newer status: it stays.
        const [row] = yield* sql<TemplateRow>`
          update templates set
            meta_status = case when meta_template_id is null then ${submitted.status.toLowerCase()} else meta_status end,
            meta_category = coalesce(meta_category, ${submitted.category.toLowerCase()}),
            meta_template_id = coalesce(meta_template_id, ${submitted.id}),
            updated_at = now()
          where id = ${pending!.id}
          returning ${sql.unsafe(TEMPLATE_COLUMNS)}`.pipe(Effect.orDie)
        // DELETE refuses a row being submitted (SUBMITTING_MS), so the row is still here.
        if (row === undefined) return yield* Effect.dieMessage(`template ${pending!.id} was deleted while it was being submitted`)
        return templateToWire(row)
      }))
    })

    const list = Effect.fn("Templates.list")(function*(accountId: number, query: TemplateListQuery) {
      const clauses = [sql`developer_account_id = ${accountId}`]
      if (query.channel_id !== undefined) clauses.push(sql`platform_channel_id = ${query.channel_id}`)
      if (query.name !== undefined) clauses.push(sql`name = ${query.name}`)
      if (query.language_code !== undefined) clauses.push(sql`language_code = ${query.language_code}`)
      if (query.category !== undefined) clauses.push(sql`category = ${query.category.toLowerCase()}`)
      if (query.status !== undefined) clauses.push(sql`lower(meta_status) = ${query.status.toLowerCase()}`)
      if (query.is_active !== undefined) clauses.push(sql`is_active = ${query.is_active}`)
      const rows = yield* sql<TemplateRow>`select ${sql.unsafe(TEMPLATE_COLUMNS)} from templates
        where ${sql.and(clauses)} order by id desc`.pipe(Effect.orDie)
      return rows.map(templateToWire)
    })

    const get = Effect.fn("Templates.get")(function*(accountId: number, id: number) {
      return templateToWire(yield* find(accountId, id))
    })

    /** The components a patch leaves, checked against the category and format it leaves (SPEC §2.2). */
    const patchedComponents = (row: TemplateRow, patch: TemplatePatch) =>
      Effect.gen(function*() {
        const category = patch.category ?? row.category
        const parameter_format = patch.parameter_format ?? row.parameter_format ?? undefined
        if (patch.components !== undefined) {
          const issues = [
            ...templateComponentIssues(patch.components, { category, parameter_format }),
            ...namedInPositional(patch.components, parameter_format)
          ]
          if (issues.length > 0) return yield* componentIssues(issues)
          return patch.components as ReadonlyArray<unknown>
        }
        const stored = row.components ?? []
        const changed = patch.category !== undefined ? "category" : patch.parameter_format !== undefined ? "parameter_format" : undefined
        if (changed !== undefined) {
          const [first] = templateComponentIssues(stored as ReadonlyArray<TemplateComponent>, { category, parameter_format })
          if (first !== undefined) {
            return yield* issue(
              [changed],
              `the stored components do not fit this ${changed} (${first.message}); supply components that do`,
              patch[changed]
            )
          }
        }
        return stored
      })

    const update = Effect.fn("Templates.update")(function*(accountId: number, id: number, patch: TemplatePatch) {
      const row = yield* find(accountId, id)
      if (lower(row.meta_status) === "pending") {
        return yield* new StatusLocked({
          message: "the template is pending review upstream; it can be edited once approved or rejected",
          status: "pending"
        })
      }
      if (row.components === null && patch.components === undefined) return yield* new LegacyRowSupplyComponents()
      const components = yield* patchedComponents(row, patch)
      const channel: UsableChannel = yield* rowChannel(accountId, row)
      const category = patch.category ?? row.category
      const parameter_format = patch.parameter_format ?? row.parameter_format ?? undefined

      // Run to its end from the claim to the final update: a client that hangs up mid-edit would
      // otherwise leave the row pending (every later PATCH 409) whatever the upstream answered.
      return yield* toTheEnd(Effect.gen(function*() {
        // Pending from before the call: a second PATCH meanwhile is 409, and a review callback that
        // beats the edit's answer moves the row on from pending (and is kept). The start and the
        // status it replaced are kept with it: a process that dies before the final write leaves
        // them, and past TEMPLATE_EDIT_MS the sweep settles the row from the upstream. Until then
        // the start alone keeps the lock, even once a callback has moved the status on.
        const startedAt = new Date(yield* Clock.currentTimeMillis)
        const claimed = yield* sql`update templates set meta_status = 'pending', edit_started_at = ${startedAt},
            edit_previous_status = meta_status, updated_at = now()
          where id = ${row.id} and developer_account_id = ${accountId} and lower(coalesce(meta_status, '')) <> 'pending'
            and (edit_started_at is null or edit_started_at <= ${new Date(startedAt.getTime() - TEMPLATE_EDIT_MS)})
          returning id`.pipe(Effect.orDie)
        if (claimed.length === 0) {
          return yield* new StatusLocked({ message: "the template is being edited or reviewed upstream; try again once it is approved or rejected", status: "pending" })
        }
        const release = sql`update templates set
            meta_status = case when meta_status = 'pending' then edit_previous_status else meta_status end,
            edit_started_at = null, edit_previous_status = null, updated_at = now()
          where id = ${row.id} and edit_started_at = ${startedAt}`.pipe(Effect.orDie)

        // A row never submitted (no upstream id) is submitted now; any other is edited in place upstream.
        const submit = row.meta_template_id === null
          ? upstream.createTemplate(channel.creds, { name: row.name, language: row.language_code, category, components, parameter_format })
          : upstream.editTemplate(channel.creds, row.meta_template_id, {
            components,
            category: patch.category,
            parameter_format: patch.parameter_format
          }).pipe(Effect.as({ id: row.meta_template_id, status: "PENDING", category: category.toUpperCase() }))
        const outcome = yield* submit.pipe(
          Effect.map((r) => ({ rejected: false as const, meta_template_id: r.id, meta_status: r.status.toLowerCase(), meta_category: r.category.toLowerCase(), reason: null })),
          Effect.catchIf(isEditRejection, (e) =>
            Effect.succeed({
              rejected: true as const,
              meta_template_id: row.meta_template_id,
              meta_status: "rejected",
              meta_category: row.meta_category,
              reason: e.meta_title !== null && e.meta_title !== e.message ? `${e.meta_title}: ${e.message}` : e.message
            })),
          Effect.tapError(() => release),
          Effect.mapError(upstreamFailed)
        )

        const derived = patch.components !== undefined ? derivedColumns(patch.components, patch.body_text ?? row.body_text) : undefined
        const bodyText = patch.body_text ?? derived?.body_text ?? row.body_text
        const variables = patch.variables ?? derived?.variables ?? row.variables
        // Accepted: the status is the submit's only while no callback has moved the row on from pending.
        const [updated] = yield* sql<TemplateRow>`
          update templates set
            body_text = ${bodyText},
            variables = ${json(variables)}::jsonb,
            category = ${category},
            components = ${json(components)}::jsonb,
            parameter_format = ${parameter_format ?? null},
            header_format = ${derived !== undefined ? derived.header_format : row.header_format},
            meta_status = ${outcome.rejected ? sql`${outcome.meta_status}` : sql`case when meta_status = 'pending' then ${outcome.meta_status} else meta_status end`},
            meta_category = ${outcome.meta_category},
            meta_template_id = coalesce(meta_template_id, ${outcome.meta_template_id}),
            meta_rejection_reason = ${outcome.rejected ? sql`${outcome.reason}` : sql`case when meta_status = 'pending' then null else meta_rejection_reason end`},
            edit_started_at = null, edit_previous_status = null, updated_at = now()
          where id = ${row.id} and developer_account_id = ${accountId}
          returning ${sql.unsafe(TEMPLATE_COLUMNS)}`.pipe(Effect.orDie)
        if (updated === undefined) return yield* new NotFound({ message: "template not found" })
        return templateToWire(updated)
      }))
    })

    const remove = Effect.fn("Templates.delete")(function*(accountId: number, id: number) {
      const row = yield* find(accountId, id)
      // A create still waiting for the upstream's answer (pending, no upstream id yet) keeps its
      // row until it answers: deleted meanwhile, the create would have nothing to return and
      // the upstream a template the platform no longer lists. Past SUBMITTING_MS (longer than
      // the gateway's deadline and retries), such a row is a crashed create's leftover.
      if (row.meta_template_id === null && lower(row.meta_status) === "pending" && (yield* Clock.currentTimeMillis) - row.created_at.getTime() < SUBMITTING_MS) {
        return yield* new StatusLocked({ message: "the template is still being submitted upstream; delete it once its create has answered", status: "pending" })
      }
      if (row.platform_channel_id !== null) {
        const channel = yield* rowChannel(accountId, row)
        // Without Meta's id (a crashed create's leftover, an old row), it is looked up by name and
        // language: a delete by name alone would take every language of the name with it.
        const hsmId = row.meta_template_id ?? (yield* upstream.listTemplates(channel.creds, { name: row.name }).pipe(
          Effect.map((listed) => listed.find((t) => t.name === row.name && t.language === row.language_code)?.id ?? null),
          Effect.mapError(upstreamFailed)
        ))
        if (hsmId !== null) {
          yield* upstream.deleteTemplate(channel.creds, { name: row.name, hsm_id: hsmId }).pipe(
            Effect.catchIf(isTemplateMissing, () => Effect.void),
            Effect.mapError(upstreamFailed)
          )
        }
      }
      yield* sql`delete from templates where id = ${row.id} and developer_account_id = ${accountId}`.pipe(Effect.orDie)
    })

    /**
     * Every upstream template of the channel's WABA, upserted in one statement by
     * (channel, name, language_code). A row is updated only when its snapshot
     * differs, so a second sync of the same upstream state updates nothing.
     */
    const sync = Effect.fn("Templates.sync")(function*(accountId: number, input: TemplateSync) {
      const channel = yield* bodyChannel(accountId, input.channel_id)
      const listed = yield* upstream.listTemplates(channel.creds).pipe(Effect.mapError(upstreamFailed))
      const byKey = new Map<string, NonNullable<ReturnType<typeof rowFromUpstream>>>()
      for (const t of listed) {
        const row = rowFromUpstream(t)
        if (row !== undefined) byKey.set(`${row.name}\u0000${row.language_code}`, row)
      }
      const rows = [...byKey.values()]
      // A row under a live edit keeps its pending mark: Meta may not have the edit yet, and its
      // older snapshot would unlock the row (a second PATCH let through) and make the edit's own
      // answer look like a later callback's. A dead edit's row (past TEMPLATE_EDIT_MS) is settled.
      const liveSince = new Date((yield* Clock.currentTimeMillis) - TEMPLATE_EDIT_MS)
      const written = rows.length === 0 ? [] : yield* sql<{ inserted: boolean }>`
        insert into templates as t (developer_account_id, platform_channel_id, name, language_code, category, body_text,
          variables, components, parameter_format, header_format, meta_status, meta_category, meta_template_id,
          meta_rejection_reason)
        select ${accountId}, ${channel.id}, x.name, x.language_code, x.category, x.body_text, x.variables, x.components,
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
      const imported = written.filter((w) => w.inserted).length
      const updated = written.length - imported
      return { imported, updated, skipped: listed.length - imported - updated, total: listed.length } satisfies TemplateSyncResult
    })

    /** A header sample for `example.header_handle`: buffered (the resumable upload needs its length first), then uploaded. */
    const uploadHeaderMedia = Effect.fn("Templates.uploadHeaderMedia")(function*(
      accountId: number,
      parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
      channelIdFromQuery: string | undefined,
      declaredLength: number | undefined
    ) {
      const { use: channel, file } = yield* readHeaderMediaForm(
        parts,
        channelIdFromQuery,
        declaredLength,
        (channelId) => bodyChannel(accountId, channelId)
      )
      const { handle } = yield* upstream.uploadHeaderMedia(channel.creds, file).pipe(Effect.mapError(upstreamFailed))
      return { handle } satisfies HeaderMediaResult
    })

    /** The columns a settle needs of the row it took. */
    type Taken = {
      id: number
      developer_account_id: number
      platform_channel_id: number | null
      name: string
      language_code: string
      meta_template_id: string | null
      edit_previous_status: string | null
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
    const takeStale = (now: number, lease: Date) =>
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

    /**
     * Settles one dead edit or create (see takeStale) from Meta's own record of the template: its
     * status (unless a callback has moved the row on since), rejection reason and Meta's id, and its
     * content when the platform can model it. A template Meta does not have (the call never got
     * there) ends as a failed call ends: an edit goes back to the status it replaced, a create's row
     * is deleted. An edit whose channel can no longer ask Meta goes back too (its PATCH would be 422
     * anyway); a create's row then keeps its lease, as when Meta fails: a later pass asks again.
     */
    const settleStale = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const lease = new Date(now)
      const row = yield* takeStale(now, lease)
      if (row === undefined) return false
      const creating = lower(row.edit_previous_status) === "pending"
      const restore = sql`update templates set
          meta_status = case when meta_status = 'pending' then edit_previous_status else meta_status end,
          edit_started_at = null, edit_previous_status = null, updated_at = now()
        where id = ${row.id} and edit_started_at = ${lease}`.pipe(Effect.orDie, Effect.asVoid)
      const retryLater = (reason: string) =>
        Effect.logWarning(`template sweep: ${reason}; the row is retried in 2 minutes`).pipe(
          Effect.annotateLogs({ template_id: row.id, creating }),
          Effect.as(true)
        )
      const cannotAsk = creating ? retryLater("the template's channel cannot ask the upstream") : Effect.as(restore, true)
      const channel = row.platform_channel_id === null
        ? undefined
        : yield* channels.get(row.developer_account_id, row.platform_channel_id).pipe(Effect.option, Effect.map(Option.getOrUndefined))
      if (channel === undefined) return yield* cannotAsk
      const listed = yield* upstream.listTemplates(channel.creds, { name: row.name }).pipe(Effect.either)
      // Refused before any call (the channel has no WABA): asking again will not help.
      if (Either.isLeft(listed) && listed.left._tag === "UpstreamRequestInvalid") return yield* cannotAsk
      if (Either.isLeft(listed)) {
        return yield* retryLater("the upstream failed").pipe(Effect.annotateLogs({ error: listed.left._tag, reason: listed.left.message }))
      }
      const found = listed.right.find((t) =>
        row.meta_template_id !== null ? t.id === row.meta_template_id : t.name === row.name && t.language === row.language_code
      )
      if (found === undefined) {
        // A create's row is deleted unless a callback has given it Meta's id meanwhile; then, as an edit's, it is released.
        if (creating) {
          yield* sql`delete from templates where id = ${row.id} and edit_started_at = ${lease}
            and meta_template_id is null and lower(meta_status) = 'pending'`.pipe(Effect.orDie)
        }
        return yield* Effect.as(restore, true)
      }
      const status = found.status.toLowerCase()
      const reason = status === "rejected" ? found.rejected_reason : null
      const content = rowFromUpstream(found)
      yield* sql`update templates set
          meta_status = case when meta_status = 'pending' then ${status} else meta_status end,
          meta_rejection_reason = case when meta_status = 'pending' then ${reason} else meta_rejection_reason end,
          meta_category = ${found.category.toLowerCase()},
          meta_template_id = coalesce(meta_template_id, ${found.id}),
          ${content === undefined ? sql`` : sql`category = ${content.category}, body_text = ${content.body_text},
            variables = ${json(content.variables)}::jsonb, components = ${json(content.components)}::jsonb,
            parameter_format = ${content.parameter_format}, header_format = ${content.header_format},`}
          edit_started_at = null, edit_previous_status = null, updated_at = now()
        where id = ${row.id} and edit_started_at = ${lease}`.pipe(Effect.orDie)
      return true
    })

    /** Every dead edit and create, one lease at a time; how many were taken. */
    const sweepStale = Effect.fn("Templates.sweepStale")(function*() {
      let taken = 0
      while (yield* settleStale) taken++
      return taken
    })

    return { create, list, get, update, delete: remove, sync, uploadHeaderMedia, sweepStale } as const
  })
}) {}
