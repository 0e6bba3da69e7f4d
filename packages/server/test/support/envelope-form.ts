/** SPEC §6.2: the envelope's keys, in the documented order. */
export const ENVELOPE_KEYS = ["id", "event", "developer_account_id", "platform_channel_id", "occurred_at", "api_version", "data"]

/** SPEC §6.2: the data of message.* events, in the documented order (status events add `error`). */
export const MESSAGE_DATA_KEYS = [
  "message_id",
  "conversation_id",
  "peer_id",
  "direction",
  "source",
  "type",
  "text",
  "has_media",
  "media_id",
  "status",
  "meta_message_id"
]

/**
 * The form of a stored envelope, which is the body a receiver gets (migration
 * 0011): whether it is compact JSON (what JSON.stringify makes of it), its keys
 * and its data's keys in the order they are written.
 */
export const formOf = (text: string) => {
  const value = JSON.parse(text) as Record<string, unknown>
  return {
    compact: JSON.stringify(value) === text,
    keys: Object.keys(value),
    dataKeys: Object.keys((value.data ?? {}) as object)
  }
}
