import { Schema } from "effect"
import { Id, JsonObject, maxChars, Timestamp, optional, requestBody } from "./common.js"
import { CONTACT_DISPLAY_NAME_MAX } from "./limits.js"
import { ListQueryFields, Page } from "./pagination.js"
import { IntegerParam } from "./param.js"

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

/**
 * PATCH /contacts/{id}. contact_metadata is merged into the stored object key by key
 * (a key set to null is removed, like Stripe's metadata); display_name replaces the old one.
 */
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

/** Query of GET /contacts (DESIGN §5 "Filters"): `q` is a case-insensitive prefix of a name, the phone or the username. */
export const ContactListQuery = Schema.Struct({
  ...ListQueryFields,
  channel_id: optional(IntegerParam("Only contacts of this channel.")),
  q: optional(Schema.String.annotations({
    description: "Case-insensitive prefix of the display name, profile name, username or phone (a leading + is ignored)."
  }))
})
export type ContactListQuery = typeof ContactListQuery.Type

export const ContactList = Page(Contact).annotations({ identifier: "ContactList" })
export type ContactList = typeof ContactList.Type

/** DELETE /contacts/{id} (202): the contact is gone from every read now; its rows are wiped in the background. */
export const ContactDeleted = Schema.Struct({ id: Id, deleted: Schema.Literal(true) }).annotations({ identifier: "ContactDeleted" })
export type ContactDeleted = typeof ContactDeleted.Type
