import { SqlClient } from "@effect/sql"
import type { TemplateCreate } from "@platform/shared"
import { Effect } from "effect"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache } from "../channels/channel-credentials.js"
import { placeholdersOf } from "./template-parameters.js"
import { derivedColumns, templateToWire } from "./template-rows.js"
import {
  bodyChannel,
  componentIssues,
  duplicate,
  issue,
  namedInPositional,
  positionalMessage,
  TEMPLATE_NAME,
  toTheEnd,
  upstreamFailed
} from "./template-rules.js"
import { discardPending, insertPending, recordSubmitted } from "./template-statements.js"

/**
 * POST /templates (SPEC §3.1): the template is checked here, written pending, submitted
 * upstream, and answered with the snapshot the upstream returned; a refused submit leaves no row.
 */
export const makeTemplateCreate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const channels = yield* ChannelCredentialsCache
  const upstream = yield* Upstream

  return Effect.fn("Templates.create")(function*(accountId: number, input: TemplateCreate) {
    if (!TEMPLATE_NAME.test(input.name)) {
      return yield* issue(["name"], "must be 1 to 512 lower case letters, digits and underscores", input.name)
    }
    const channel = yield* bodyChannel(channels, accountId, input.channel_id)
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
      const pendingId = yield* insertPending(sql, accountId, channel.id, input, columns)
      if (pendingId === null) return yield* duplicate(input)
      const submitted = yield* upstream.createTemplate(channel.creds, {
        name: input.name,
        language: input.language_code,
        category: input.category,
        components,
        parameter_format: input.parameter_format
      }).pipe(
        Effect.tapError(() => discardPending(sql, pendingId)),
        Effect.mapError(upstreamFailed)
      )
      const row = yield* recordSubmitted(sql, pendingId, submitted)
      // DELETE refuses a row being submitted (SUBMITTING_MS), so the row is still here.
      if (row === undefined) return yield* Effect.dieMessage(`template ${pendingId} was deleted while it was being submitted`)
      return templateToWire(row)
    }))
  })
})
