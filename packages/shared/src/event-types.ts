/**
 * The 12 normalized event types (SPEC §6.1). In a module that imports nothing, so
 * the SDK bundles the list without pulling Effect in.
 */
export const EVENT_TYPES = [
  "message.received",
  "message.sent",
  "message.delivered",
  "message.read",
  "message.failed",
  "message.echo",
  "conversation.created",
  "conversation.ended",
  "conversation.inactive",
  "channel.connected",
  "channel.disconnected",
  "template.status_changed"
] as const
