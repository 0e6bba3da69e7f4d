import { Schema } from "effect"
import { Id, Timestamp, optional, requestBody } from "./common.js"

export const ConversationStatus = Schema.Literal("active", "ended").annotations({ identifier: "ConversationStatus" })
export type ConversationStatus = typeof ConversationStatus.Type

/** Conversation resource (SPEC §2.3). */
export const Conversation = Schema.Struct({
  id: Id,
  platform_channel_id: Id,
  platform_contact_id: optional(Schema.NullOr(Id)),
  peer_id: Schema.String,
  status: ConversationStatus,
  created_at: Timestamp,
  ended_at: optional(Schema.NullOr(Timestamp)),
  last_active_at: Timestamp,
  last_message_direction: optional(Schema.NullOr(Schema.String)),
  last_message_preview: optional(Schema.NullOr(Schema.String)),
  message_count: Schema.Int,
  inbound_count: Schema.Int,
  outbound_count: Schema.Int
}).annotations({ identifier: "Conversation" })
export type Conversation = typeof Conversation.Type

/** PATCH /conversations/{id}. */
export const ConversationPatch = requestBody(Schema.Struct({ status: ConversationStatus }), "ConversationPatch")
export type ConversationPatch = typeof ConversationPatch.Type
