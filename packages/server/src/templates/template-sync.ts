import { SqlClient } from "@effect/sql"
import type { TemplateSync, TemplateSyncResult } from "@platform/shared"
import { Clock, Effect } from "effect"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache } from "../channels/channel-credentials.js"
import { rowFromUpstream } from "./template-rows.js"
import { bodyChannel, TEMPLATE_EDIT_MS, upstreamFailed } from "./template-rules.js"
import { type ListedRow, upsertListed } from "./template-statements.js"

/**
 * POST /templates/sync (SPEC §3.1): every upstream template of the channel's WABA, upserted
 * by (channel, name, language_code); what the platform cannot model is skipped. A row under
 * a live edit keeps its pending mark; a dead edit's row (past TEMPLATE_EDIT_MS) is settled.
 */
export const makeTemplateSync = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const channels = yield* ChannelCredentialsCache
  const upstream = yield* Upstream

  return Effect.fn("Templates.sync")(function*(accountId: number, input: TemplateSync) {
    const channel = yield* bodyChannel(channels, accountId, input.channel_id)
    const listed = yield* upstream.listTemplates(channel.creds).pipe(Effect.mapError(upstreamFailed))
    const byKey = new Map<string, ListedRow>()
    for (const t of listed) {
      const row = rowFromUpstream(t)
      if (row !== undefined) byKey.set(`${row.name}\u0000${row.language_code}`, row)
    }
    const liveSince = new Date((yield* Clock.currentTimeMillis) - TEMPLATE_EDIT_MS)
    const written = yield* upsertListed(sql, accountId, channel.id, [...byKey.values()], liveSince)
    // The platform now knows every template of the channel: a send naming another is refused locally (messages.ts).
    yield* sql`update platform_channels set templates_synced_at = now() where id = ${channel.id}`.pipe(Effect.orDie)
    const imported = written.filter((w) => w.inserted).length
    const updated = written.length - imported
    return { imported, updated, skipped: listed.length - imported - updated, total: listed.length } satisfies TemplateSyncResult
  })
})
