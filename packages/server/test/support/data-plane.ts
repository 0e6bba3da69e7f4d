import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface SeededThread {
  readonly contact: number
  readonly conversation: number
  /** Message ids, oldest first. */
  readonly messages: ReadonlyArray<number>
}

export interface SeedMessage {
  readonly direction?: "inbound" | "outbound"
  readonly type?: string
  readonly status?: string | null
  readonly created_at?: string
}

/**
 * A contact, its conversation with `peer` and its messages, written as rows (the
 * inbound and send paths have their own tests; these tests are about the reads).
 */
export const seedThread = (
  accountId: number,
  channelId: number,
  peer: string,
  messages: ReadonlyArray<SeedMessage>,
  contact: Record<string, unknown> = {}
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [k] = yield* sql<{ id: number }>`insert into contacts ${sql.insert({
      developer_account_id: accountId,
      platform_channel_id: channelId,
      chat_id: peer,
      phone: peer,
      ...contact
    })} returning id`
    const [c] = yield* sql<{ id: number }>`insert into conversations
      (developer_account_id, platform_channel_id, platform_contact_id, peer_id, message_count)
      values (${accountId}, ${channelId}, ${k!.id}, ${peer}, ${messages.length}) returning id`
    const ids: Array<number> = []
    for (const [i, m] of messages.entries()) {
      const direction = m.direction ?? "inbound"
      const [row] = yield* sql<{ id: number }>`insert into messages ${sql.insert({
        developer_account_id: accountId,
        platform_channel_id: channelId,
        conversation_id: c!.id,
        contact_id: k!.id,
        direction,
        source: direction === "inbound" ? "contact" : "api",
        type: m.type ?? "text",
        text: `message ${i}`,
        status: m.status === undefined ? (direction === "outbound" ? "sent" : null) : m.status,
        meta_message_id: `wamid.${peer}.${i}.${Math.random().toString(36).slice(2)}`,
        created_at: m.created_at ?? new Date().toISOString()
      })} returning id`
      ids.push(row!.id)
    }
    return { contact: k!.id, conversation: c!.id, messages: ids } satisfies SeededThread
  }).pipe(Effect.orDie)

/** A chat channel row of the account (no upstream involved). */
export const seedChannel = (accountId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number }>`insert into platform_channels (developer_account_id, type, name, phone_number_id)
      values (${accountId}, 'chat', 'seeded', ${`pn-${accountId}-${Math.random().toString(36).slice(2)}`}) returning id`
    return row!.id
  }).pipe(Effect.orDie)

/** Every id of a list, following next_cursor as `after` from the first page. */
export const idsOf = (body: { data: ReadonlyArray<{ id: number }> }) => body.data.map((r) => r.id)
