import { Schema } from "effect"
import { Id, JsonObject, maxChars, Timestamp, optional, requestBody } from "./common.js"
import { CONTACT_DISPLAY_NAME_MAX } from "./limits.js"

/** Contact resource (SPEC §2.4). */
export const Contact = Schema.Struct({
  id: Id,
  platform_channel_id: Id,
  chat_id: optional(Schema.NullOr(Schema.String)),
  social_id: optional(Schema.NullOr(Schema.String)),
  business_scoped_user_id: optional(Schema.NullOr(Schema.String)),
  phone: optional(Schema.NullOr(Schema.String)),
  username: optional(Schema.NullOr(Schema.String)),
  profile_name: optional(Schema.NullOr(Schema.String)),
  display_name: optional(Schema.NullOr(Schema.String)),
  contact_metadata: JsonObject,
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  created_at: Timestamp
}).annotations({ identifier: "Contact" })
export type Contact = typeof Contact.Type

/** PATCH /contacts/{id}; contact_metadata stays an open object. */
export const ContactPatch = requestBody(
  Schema.Struct({
    contact_metadata: optional(JsonObject),
    display_name: optional(
      Schema.String.pipe(maxChars(CONTACT_DISPLAY_NAME_MAX))
    )
  }),
  "ContactPatch"
)
export type ContactPatch = typeof ContactPatch.Type
