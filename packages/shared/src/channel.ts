import { Schema } from "effect"
import { Id, maxChars, NonEmptyString, Timestamp, optional, requestBody } from "./common.js"
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
    users: Schema.Array(NonEmptyString).pipe(
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

/** PATCH /channels/{id}/inbound: the inbound kill-switch. */
export const InboundSwitch = requestBody(Schema.Struct({ enabled: Schema.Boolean }), "InboundSwitch")
export type InboundSwitch = typeof InboundSwitch.Type
