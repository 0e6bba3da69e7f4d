import { Schema } from "effect"
import { Id, Timestamp, optional, requestBody } from "./common.js"
import { ListQueryFields, Page } from "./pagination.js"
import { IntegerParam } from "./param.js"

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

/** Query of GET /conversations (DESIGN §5 "Filters"); a status or peer_id no conversation has gives an empty page. */
export const ConversationListQuery = Schema.Struct({
  ...ListQueryFields,
  channel_id: optional(IntegerParam("Only conversations of this channel.")),
  status: optional(Schema.String.annotations({ description: "Only conversations in this status: active or ended." })),
  peer_id: optional(Schema.String.annotations({ description: "Only the conversation with this peer (phone number or social user id)." }))
})
export type ConversationListQuery = typeof ConversationListQuery.Type

export const ConversationList = Page(Conversation).annotations({ identifier: "ConversationList" })
export type ConversationList = typeof ConversationList.Type
