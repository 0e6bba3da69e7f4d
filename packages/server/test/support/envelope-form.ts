import { expect } from "vitest"

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

/** SPEC §6.2: ISO 8601 UTC, as JavaScript's toISOString writes it (not Postgres's `2025-01-02 03:04:05.678+00`). */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/**
 * The form of a stored envelope, which is the body a receiver gets (migration
 * 0011): whether it is compact JSON (what JSON.stringify makes of it), its keys
 * and its data's keys in the order they are written. Asserts that its timestamps
 * (occurred_at, and data.last_active_at where there is one) are ISO 8601 UTC.
 */
export const formOf = (text: string) => {
  const value = JSON.parse(text) as Record<string, unknown>
  const data = (value.data ?? {}) as Record<string, unknown>
  expect(value.occurred_at).toMatch(ISO_UTC)
  if ("last_active_at" in data) expect(data.last_active_at).toMatch(ISO_UTC)
  return {
    compact: JSON.stringify(value) === text,
    keys: Object.keys(value),
    dataKeys: Object.keys(data)
  }
}
