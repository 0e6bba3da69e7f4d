import { Schema } from "effect"
import { Id, maxChars, NonBlankString, Timestamp, optional, requestBody } from "./common.js"
import {
  BLOCK_USERS_MAX,
  PROFILE_ABOUT_MAX,
  PROFILE_ADDRESS_MAX,
  PROFILE_DESCRIPTION_MAX,
  PROFILE_EMAIL_MAX,
  PROFILE_WEBSITES_MAX
} from "./limits.js"

export const ChannelType = Schema.Literal("chat", "social").annotations({ identifier: "ChannelType" })
export type ChannelType = typeof ChannelType.Type

export const ChannelStatus = Schema.Literal("active", "inactive", "disconnected").annotations({
  identifier: "ChannelStatus"
})
export type ChannelStatus = typeof ChannelStatus.Type

/** Item of GET /channels: never carries token material or the full upstream identifier. */
export const Channel = Schema.Struct({
  channel_id: Id,
  type: ChannelType,
  name: Schema.NullOr(Schema.String),
  display_phone_number: optional(Schema.NullOr(Schema.String)),
  username: optional(Schema.NullOr(Schema.String)),
  meta_identifier_suffix: optional(Schema.NullOr(Schema.String)),
  status: ChannelStatus,
  inbound_enabled: optional(Schema.Boolean),
  quality_rating: Schema.NullOr(Schema.String),
  created_at: Timestamp
}).annotations({ identifier: "Channel" })
export type Channel = typeof Channel.Type

const atMost = (max: number) => Schema.String.pipe(maxChars(max))

/** POST /channels/{id}/profile: only provided fields are sent upstream (SPEC §4.8). */
export const ChannelProfileUpdate = requestBody(
  Schema.Struct({
    about: optional(atMost(PROFILE_ABOUT_MAX)),
    address: optional(atMost(PROFILE_ADDRESS_MAX)),
    description: optional(atMost(PROFILE_DESCRIPTION_MAX)),
    email: optional(atMost(PROFILE_EMAIL_MAX)),
    profile_picture_handle: optional(Schema.String),
    vertical: optional(Schema.String),
    websites: optional(
      Schema.Array(Schema.String).pipe(
        Schema.maxItems(PROFILE_WEBSITES_MAX, { message: () => `must hold at most ${PROFILE_WEBSITES_MAX} websites` })
      )
    )
  }),
  "ChannelProfileUpdate"
)
export type ChannelProfileUpdate = typeof ChannelProfileUpdate.Type

/** POST and DELETE /channels/{id}/block-users. */
export const BlockUsers = requestBody(
  Schema.Struct({
    users: Schema.Array(NonBlankString).pipe(
      Schema.minItems(1, { message: () => `must hold 1 to ${BLOCK_USERS_MAX} users` }),
      Schema.maxItems(BLOCK_USERS_MAX, { message: () => `must hold 1 to ${BLOCK_USERS_MAX} users` })
    )
  }),
  "BlockUsers"
)
export type BlockUsers = typeof BlockUsers.Type

/** POST /channels/{id}/two-factor. */
export const TwoFactor = requestBody(
  Schema.Struct({ pin: Schema.String.pipe(Schema.pattern(/^\d{6}$/, { message: () => "must be exactly 6 digits" })) }),
  "TwoFactor"
)
export type TwoFactor = typeof TwoFactor.Type

/** A problem the upstream reports for one entity of a channel's messaging chain. */
export const ChannelHealthError = Schema.Struct({
  error_code: Schema.NullOr(Schema.Int),
  error_description: Schema.NullOr(Schema.String),
  possible_solution: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ChannelHealthError" })

/**
 * Whether a chat channel can send, per entity of its chain (the phone number, its
 * business account, the business, the app): `AVAILABLE`, `LIMITED` or `BLOCKED`.
 */
export const ChannelHealthEntity = Schema.Struct({
  entity_type: Schema.String,
  can_send_message: Schema.String,
  errors: Schema.Array(ChannelHealthError),
  additional_info: Schema.Array(Schema.String)
}).annotations({ identifier: "ChannelHealthEntity" })

/** GET /channels/{id}/health: the upstream's health status; entity ids are left out (SPEC §2.8: no full upstream identifiers). */
export const ChannelHealth = Schema.Struct({
  channel_id: Id,
  can_send_message: Schema.String,
  entities: Schema.Array(ChannelHealthEntity)
}).annotations({ identifier: "ChannelHealth" })
export type ChannelHealth = typeof ChannelHealth.Type

/** GET and POST /channels/{id}/profile: the business profile as the upstream holds it. */
export const ChannelProfile = Schema.Struct({
  channel_id: Id,
  about: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  profile_picture_url: Schema.NullOr(Schema.String),
  websites: Schema.Array(Schema.String),
  vertical: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ChannelProfile" })
export type ChannelProfile = typeof ChannelProfile.Type

/** GET /channels/{id}/display-name: the display name and its review state at the upstream. */
export const ChannelDisplayName = Schema.Struct({
  channel_id: Id,
  verified_name: Schema.NullOr(Schema.String),
  display_phone_number: Schema.NullOr(Schema.String),
  name_status: Schema.NullOr(Schema.String),
  new_name_status: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ChannelDisplayName" })
export type ChannelDisplayName = typeof ChannelDisplayName.Type

/** Why the upstream did not block (or unblock) one user. */
export const BlockUserError = Schema.Struct({
  code: Schema.NullOr(Schema.Int),
  message: Schema.String
}).annotations({ identifier: "BlockUserError" })

/**
 * POST and DELETE /channels/{id}/block-users: per user as sent, blocked (or
 * unblocked) with the WhatsApp id the upstream resolved, or failed with its reasons.
 */
export const BlockUsersResult = Schema.Struct({
  channel_id: Id,
  succeeded: Schema.Array(Schema.Struct({ user: Schema.String, wa_id: Schema.NullOr(Schema.String) })),
  failed: Schema.Array(Schema.Struct({ user: Schema.String, errors: Schema.Array(BlockUserError) }))
}).annotations({ identifier: "BlockUsersResult" })
export type BlockUsersResult = typeof BlockUsersResult.Type

/** POST /channels/{id}/two-factor: the PIN is registered (it is never returned). */
export const TwoFactorResult = Schema.Struct({
  channel_id: Id,
  two_factor_enabled: Schema.Literal(true)
}).annotations({ identifier: "TwoFactorResult" })
export type TwoFactorResult = typeof TwoFactorResult.Type

/** PATCH /channels/{id}/inbound: the inbound kill-switch. */
export const InboundSwitch = requestBody(Schema.Struct({ enabled: Schema.Boolean }), "InboundSwitch")
export type InboundSwitch = typeof InboundSwitch.Type
