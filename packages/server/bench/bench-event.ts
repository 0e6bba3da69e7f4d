import { API_VERSION } from "@platform/shared"

/**
 * The envelope of the benchmark's event number `i` (a message.sent), as the event
 * writer stores it (compact JSON, keys in SPEC §6.2 order) and receivers get it.
 */
export const benchEnvelope = (
  i: number,
  id: string,
  peer: string | null,
  account: number,
  channel: number,
  occurredAt: string
) => ({
  id,
  event: "message.sent",
  developer_account_id: account,
  platform_channel_id: channel,
  occurred_at: occurredAt,
  api_version: API_VERSION,
  data: {
    message_id: i, conversation_id: 1, peer_id: peer ?? "p", direction: "outbound", source: "api", type: "text",
    text: "Olá, bench ✓", has_media: false, media_id: null, status: "sent", meta_message_id: `wamid.${i}`
  }
})
