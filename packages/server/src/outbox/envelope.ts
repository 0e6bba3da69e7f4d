/**
 * The payload of the delivery row `alias`: its own (batches, test samples,
 * conversation.inactive) or, when null, its event's envelope. Fan-out does not
 * copy an event's envelope into its deliveries (migration 0010): the event row
 * keeps it, found by its unique event_id.
 */
export const deliveryEnvelope = (alias: string) =>
  `coalesce(${alias}.envelope, (select e.envelope from events e where e.event_id = ${alias}.event_id))`

/** Top-level envelope keys in SPEC §6.2 order (rows stored before migration 0011 have them in jsonb order). */
const ENVELOPE_KEYS = ["id", "event", "developer_account_id", "platform_channel_id", "occurred_at", "api_version", "data"]

/** An envelope with its keys in the documented order, then any others. */
export const canonicalEnvelope = (envelope: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of ENVELOPE_KEYS) if (key in envelope) out[key] = envelope[key]
  for (const key of Object.keys(envelope)) if (!(key in out)) out[key] = envelope[key]
  return out
}
