import { SqlClient } from "@effect/sql"
import {
  LegacyRowSupplyComponents,
  NotFound,
  StatusLocked,
  type TemplateComponent,
  templateComponentIssues,
  type TemplatePatch
} from "@platform/shared"
import { Clock, Effect } from "effect"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { derivedColumns, templateToWire, type TemplateRow } from "./template-rows.js"
import {
  componentIssues,
  isEditRejection,
  issue,
  lower,
  namedInPositional,
  rowChannel,
  toTheEnd,
  upstreamFailed
} from "./template-rules.js"
import { findTemplate, recordEdit, releaseEdit, startEdit } from "./template-statements.js"

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

/**
 * PATCH /templates/{id} (SPEC §3.1): an edit is submitted upstream under a lease on its row
 * (pending, with the status it replaced), and the row keeps the upstream's answer; content
 * the upstream refuses makes the row rejected, any other upstream failure releases it unchanged.
 */
export const makeTemplateEdit = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const channels = yield* ChannelCredentialsCache
  const upstream = yield* Upstream

  return Effect.fn("Templates.update")(function*(accountId: number, id: number, patch: TemplatePatch) {
    const row = yield* findTemplate(sql, accountId, id)
    if (lower(row.meta_status) === "pending") {
      return yield* new StatusLocked({
        message: "the template is pending review upstream; it can be edited once approved or rejected",
        status: "pending"
      })
    }
    if (row.components === null && patch.components === undefined) return yield* new LegacyRowSupplyComponents()
    const components = yield* patchedComponents(row, patch)
    const channel: UsableChannel = yield* rowChannel(channels, accountId, row)
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
      if (!(yield* startEdit(sql, accountId, row.id, startedAt))) {
        return yield* new StatusLocked({ message: "the template is being edited or reviewed upstream; try again once it is approved or rejected", status: "pending" })
      }

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
        Effect.tapError(() => releaseEdit(sql, row.id, startedAt)),
        Effect.mapError(upstreamFailed)
      )

      const derived = patch.components !== undefined ? derivedColumns(patch.components, patch.body_text ?? row.body_text) : undefined
      const updated = yield* recordEdit(sql, accountId, row.id, {
        body_text: patch.body_text ?? derived?.body_text ?? row.body_text,
        variables: patch.variables ?? derived?.variables ?? row.variables,
        category,
        components,
        parameter_format: parameter_format ?? null,
        header_format: derived !== undefined ? derived.header_format : row.header_format
      }, outcome)
      if (updated === undefined) return yield* new NotFound({ message: "template not found" })
      return templateToWire(updated)
    }))
  })
})
