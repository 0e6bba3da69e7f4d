import { SqlClient } from "@effect/sql"
import {
  type Contact,
  type ContactDeleted,
  type ContactListQuery,
  type ContactPatch,
  NotFound
} from "@platform/shared"
import { Effect } from "effect"
import { deletedSuffix } from "./contact-wipe-progress.js"
import { cursorRange, toPage } from "../http/pagination.js"

interface ContactRow {
  readonly id: number
  readonly platform_channel_id: number
  readonly chat_id: string | null
  readonly social_id: string | null
  readonly business_scoped_user_id: string | null
  readonly phone: string | null
  readonly username: string | null
  readonly profile_name: string | null
  readonly display_name: string | null
  readonly contact_metadata: Record<string, unknown>
  readonly first_seen_at: Date
  readonly last_seen_at: Date
  readonly created_at: Date
}

const COLUMNS = `k.id, k.platform_channel_id, k.chat_id, k.social_id, k.business_scoped_user_id, k.phone, k.username,
  k.profile_name, k.display_name, k.contact_metadata, k.first_seen_at, k.last_seen_at, k.created_at`

const contactToWire = (row: ContactRow): Contact => ({
  id: row.id,
  platform_channel_id: row.platform_channel_id,
  chat_id: row.chat_id,
  social_id: row.social_id,
  business_scoped_user_id: row.business_scoped_user_id,
  phone: row.phone,
  username: row.username,
  profile_name: row.profile_name,
  display_name: row.display_name,
  contact_metadata: row.contact_metadata,
  first_seen_at: row.first_seen_at.toISOString(),
  last_seen_at: row.last_seen_at.toISOString(),
  created_at: row.created_at.toISOString()
})

/** A LIKE prefix pattern matching `text` literally (its %, _ and \ escaped). */
const prefixPattern = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * Contacts of the data plane (SPEC §4.4). A deleted contact (deleted_at set) is
 * absent from every route here at once; ContactWipe removes its rows later.
 */
export class Contacts extends Effect.Service<Contacts>()("@platform/server/Contacts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const list = Effect.fn("Contacts.list")(function*(accountId: number, query: ContactListQuery) {
      const range = yield* cursorRange(query)
      const filters = [
        sql`k.developer_account_id = ${accountId}`,
        sql`k.deleted_at is null`,
        sql`k.id < ${range.below}`,
        sql`k.id > ${range.above}`
      ]
      if (query.channel_id !== undefined) filters.push(sql`k.platform_channel_id = ${query.channel_id}`)
      const q = query.q?.trim() ?? ""
      if (q.length > 0) {
        // Each arm matches one prefix index of migration 0015 (lower(column) text_pattern_ops).
        const name = prefixPattern(q.toLowerCase())
        const phone = prefixPattern(q.replace(/^\+/, ""))
        filters.push(sql`(lower(k.display_name) like ${name} or lower(k.profile_name) like ${name}
          or lower(k.username) like ${name} or k.phone like ${phone})`)
      }
      const rows = yield* sql<ContactRow>`select ${sql.literal(COLUMNS)} from contacts k where ${sql.and(filters)}
        order by ${sql.literal(range.direction === "before" ? "k.id asc" : "k.id desc")} limit ${query.limit + 1}`
      return toPage(rows, query.limit, range.direction, contactToWire)
    }, Effect.catchTag("SqlError", Effect.die))

    const get = Effect.fn("Contacts.get")(function*(accountId: number, id: number) {
      const [row] = yield* sql<ContactRow>`select ${sql.literal(COLUMNS)} from contacts k
        where k.id = ${id} and k.developer_account_id = ${accountId} and k.deleted_at is null`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      return contactToWire(row)
    })

    /** Metadata keys are merged into the stored object; a key set to null is removed. */
    const update = Effect.fn("Contacts.update")(function*(accountId: number, id: number, patch: ContactPatch) {
      const metadata = JSON.stringify(patch.contact_metadata ?? {})
      const [row] = yield* sql<ContactRow>`update contacts k set
          contact_metadata = (k.contact_metadata || ${metadata}::jsonb)
            - array(select e.key from jsonb_each(${metadata}::jsonb) e where e.value = 'null'::jsonb),
          display_name = ${patch.display_name === undefined ? sql`k.display_name` : sql`${patch.display_name}`}
        where k.id = ${id} and k.developer_account_id = ${accountId} and k.deleted_at is null
        returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      return contactToWire(row)
    })

    /**
     * Marks the contact deleted: from this commit on no read shows it, its messages
     * or its conversations. The rows themselves go in ContactWipe's batches, so a
     * contact with a long history costs no long transaction here, and a crash
     * mid-way leaves the mark, from which the wipe resumes.
     *
     * The same commit lets go of the peer: the contact's chat_id/social_id and its
     * conversations' peer_id (both unique per channel, the keys inbound and sends
     * upsert on) are moved aside, so a message from or to that person before the
     * wipe has run starts a new contact and conversation instead of joining the
     * hidden ones and being wiped with them.
     */
    const remove = Effect.fn("Contacts.delete")(function*(accountId: number, id: number) {
      const removed = yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql`update contacts set deleted_at = now(), chat_id = null, social_id = null
          where id = ${id} and developer_account_id = ${accountId} and deleted_at is null returning id`
        if (rows.length === 0) return false
        yield* sql`update conversations set peer_id = peer_id || ${deletedSuffix(id)}
          where platform_contact_id = ${id}`
        return true
      })).pipe(Effect.orDie)
      if (!removed) return yield* new NotFound()
      return { id, deleted: true } satisfies ContactDeleted
    })

    return { list, get, update, remove } as const
  })
}) {}
