import { SqlClient } from "@effect/sql"
import { Clock, Effect, Either, Option } from "effect"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache } from "../channels/channel-credentials.js"
import { rowFromUpstream } from "./template-rows.js"
import { lower } from "./template-rules.js"
import { deleteDeadCreate, recordFound, releaseEdit, takeStale } from "./template-statements.js"

/**
 * The settle of edits and creates whose process died mid-call (the template sweep,
 * template-sweep.ts, runs it): `sweepStale` settles every dead one, one lease at a time.
 */
export const makeTemplateSettle = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const channels = yield* ChannelCredentialsCache
  const upstream = yield* Upstream

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
    const row = yield* takeStale(sql, now, lease)
    if (row === undefined) return false
    const creating = lower(row.edit_previous_status) === "pending"
    const restore = releaseEdit(sql, row.id, lease)
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
      if (creating) yield* deleteDeadCreate(sql, row.id, lease)
      return yield* Effect.as(restore, true)
    }
    const status = found.status.toLowerCase()
    yield* recordFound(sql, row.id, lease, {
      status,
      reason: status === "rejected" ? found.rejected_reason : null,
      category: found.category.toLowerCase(),
      meta_template_id: found.id,
      content: rowFromUpstream(found)
    })
    return true
  })

  /** Every dead edit and create, one lease at a time; how many were taken. */
  return Effect.fn("Templates.sweepStale")(function*() {
    let taken = 0
    while (yield* settleStale) taken++
    return taken
  })
})
