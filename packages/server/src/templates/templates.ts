import { SqlClient } from "@effect/sql"
import { type HeaderMediaResult, StatusLocked, type TemplateListQuery } from "@platform/shared"
import type * as Multipart from "@effect/platform/Multipart"
import { Clock, Effect, type Stream } from "effect"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache } from "../channels/channel-credentials.js"
import { makeTemplateCreate } from "./template-create.js"
import { makeTemplateEdit } from "./template-edit.js"
import { readHeaderMediaForm } from "./template-header-media.js"
import { templateToWire } from "./template-rows.js"
import { bodyChannel, isTemplateMissing, lower, rowChannel, SUBMITTING_MS, upstreamFailed } from "./template-rules.js"
import { makeTemplateSettle } from "./template-settle.js"
import { deleteTemplate, findTemplate, listTemplates } from "./template-statements.js"
import { makeTemplateSync } from "./template-sync.js"

/**
 * Message templates (SPEC §2.1, §3.1, §4.2). The upstream is the authority on a
 * template's status: every create and edit is submitted there, and the row
 * keeps the snapshot it answered; later changes come as status callbacks (inbound).
 * Create, edit, sync and the settle of dead edits and creates have their own modules.
 */
export class Templates extends Effect.Service<Templates>()("@platform/server/Templates", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channels = yield* ChannelCredentialsCache
    const upstream = yield* Upstream

    const list = Effect.fn("Templates.list")(function*(accountId: number, query: TemplateListQuery) {
      return (yield* listTemplates(sql, accountId, query)).map(templateToWire)
    })

    const get = Effect.fn("Templates.get")(function*(accountId: number, id: number) {
      return templateToWire(yield* findTemplate(sql, accountId, id))
    })

    const remove = Effect.fn("Templates.delete")(function*(accountId: number, id: number) {
      const row = yield* findTemplate(sql, accountId, id)
      // A create still waiting for the upstream's answer (pending, no upstream id yet) keeps its
      // row until it answers: deleted meanwhile, the create would have nothing to return and
      // the upstream a template the platform no longer lists. Past SUBMITTING_MS (longer than
      // the gateway's deadline and retries), such a row is a crashed create's leftover.
      if (row.meta_template_id === null && lower(row.meta_status) === "pending" && (yield* Clock.currentTimeMillis) - row.created_at.getTime() < SUBMITTING_MS) {
        return yield* new StatusLocked({ message: "the template is still being submitted upstream; delete it once its create has answered", status: "pending" })
      }
      if (row.platform_channel_id !== null) {
        const channel = yield* rowChannel(channels, accountId, row)
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
      yield* deleteTemplate(sql, accountId, row.id)
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
        (channelId) => bodyChannel(channels, accountId, channelId)
      )
      const { handle } = yield* upstream.uploadHeaderMedia(channel.creds, file).pipe(Effect.mapError(upstreamFailed))
      return { handle } satisfies HeaderMediaResult
    })

    return {
      create: yield* makeTemplateCreate,
      list,
      get,
      update: yield* makeTemplateEdit,
      delete: remove,
      sync: yield* makeTemplateSync,
      uploadHeaderMedia,
      sweepStale: yield* makeTemplateSettle
    } as const
  }),
  dependencies: [ChannelCredentialsCache.Default]
}) {}
