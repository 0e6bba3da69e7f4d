import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { Channel } from "./channel.js"
import { Id, Label, NonBlankString, Timestamp, optional, requestBody } from "./common.js"
import { AUTHORIZATION_CODE_MAX, Plan, TARGET_URL_MAX, UPSTREAM_ID_MAX } from "./limits.js"

/** Roles of a team member: owner (everything), admin (everything but plan changes and owners), developer. */
export const Role = Schema.Literal("owner", "admin", "developer").annotations({ identifier: "Role" })
export type Role = typeof Role.Type

const Email = Schema.String.pipe(
  Schema.trimmed({ message: () => "must not start or end with whitespace" }),
  Schema.maxLength(254, { message: () => "must be at most 254 characters" }),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address" })
)

const Password = Schema.String.pipe(
  Schema.minLength(8, { message: () => "must be at least 8 characters" }),
  Schema.maxLength(256, { message: () => "must be at most 256 characters" })
)

const Name = Label(200)

/** POST /platform/dashboard/signup: a user, their account (named after them unless given) and the owner role. */
export const Signup = requestBody(
  Schema.Struct({ email: Email, password: Password, name: Name, account_name: optional(Name) }),
  "Signup"
)
export type Signup = typeof Signup.Type

/**
 * POST /platform/dashboard/login. `account_id` picks which of the user's accounts the
 * session is for (see `Me.accounts`); without it, the account the user owns (else the
 * one they joined first).
 */
export const Login = requestBody(
  Schema.Struct({ email: Schema.String, password: Schema.String, account_id: optional(Id) }),
  "Login"
)
export type Login = typeof Login.Type

export const User = Schema.Struct({
  id: Id,
  email: Schema.String,
  name: Schema.String,
  created_at: Timestamp
}).annotations({ identifier: "User" })
export type User = typeof User.Type

export const Account = Schema.Struct({
  id: Id,
  name: Schema.String,
  plan: Plan,
  created_at: Timestamp
}).annotations({ identifier: "Account" })
export type Account = typeof Account.Type

export const AccountPatch = requestBody(Schema.Struct({ name: optional(Name) }), "AccountPatch")
export type AccountPatch = typeof AccountPatch.Type

/** Current calendar month (UTC) counters, plus the connected channel count. */
export const Usage = Schema.Struct({
  period: Schema.String,
  inbound_messages: Schema.Int,
  template_messages: Schema.Int,
  broadcasts: Schema.Int,
  channels: Schema.Int
}).annotations({ identifier: "Usage" })
export type Usage = typeof Usage.Type

export const Limits = Schema.Struct({
  inbound_messages_per_month: Schema.Int,
  template_messages_per_month: Schema.Int,
  channels: Schema.Int,
  broadcasts_enabled: Schema.Boolean,
  broadcasts_per_month: Schema.Int,
  broadcast_recipients_limit: Schema.Int
}).annotations({ identifier: "Limits" })
export type Limits = typeof Limits.Type

/** GET /platform/dashboard/billing. */
export const Billing = Schema.Struct({
  plan: Plan,
  usage: Usage,
  limits: Limits
}).annotations({ identifier: "Billing" })
export type Billing = typeof Billing.Type

export const PlanChange = requestBody(Schema.Struct({ plan: Plan }), "PlanChange")
export type PlanChange = typeof PlanChange.Type

/** An account the user is a member of, with their role there. */
export const Membership = Schema.Struct({
  id: Id,
  name: Schema.String,
  role: Role
}).annotations({ identifier: "Membership" })
export type Membership = typeof Membership.Type

/**
 * GET /platform/dashboard/me (also the body of signup and login): the session's
 * account, and every account of the user (sign in with `account_id` to switch).
 */
export const Me = Schema.Struct({
  user: User,
  account: Account,
  role: Role,
  plan: Plan,
  usage: Usage,
  accounts: Schema.Array(Membership)
}).annotations({ identifier: "Me" })
export type Me = typeof Me.Type

export const TeamMember = Schema.Struct({
  user_id: Id,
  email: Schema.String,
  name: Schema.String,
  role: Role,
  created_at: Timestamp
}).annotations({ identifier: "TeamMember" })
export type TeamMember = typeof TeamMember.Type

/**
 * POST /platform/dashboard/team: adds an existing user by email, or creates the user
 * (then `name` and `password` are required: there is no mailer to send an invitation).
 * For an existing user `name` and `password` are 422: that user keeps their own.
 */
export const TeamAdd = requestBody(
  Schema.Struct({ email: Email, role: Role, name: optional(Name), password: optional(Password) }),
  "TeamAdd"
)
export type TeamAdd = typeof TeamAdd.Type

/** A channel as the dashboard shows it: the v1 item plus identifiers and raw-forward state, never a token. */
export const DashboardChannel = Schema.Struct({
  ...Channel.fields,
  phone_number_id: Schema.NullOr(Schema.String),
  waba_id: Schema.NullOr(Schema.String),
  social_id: Schema.NullOr(Schema.String),
  webhook_url: Schema.NullOr(Schema.String),
  has_webhook_secret: Schema.Boolean,
  disconnected_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "DashboardChannel" })
export type DashboardChannel = typeof DashboardChannel.Type

/**
 * An id the upstream hands out (phone number, WhatsApp Business Account, Instagram account):
 * Meta's are digits; letters, `_` and `-` are taken too (the sandbox's test ids have them). It
 * becomes a Graph API path segment, so nothing else is: a `/` or `?` would change the call, and a
 * huge one failed only at the upstream, after the signup code was spent (a 502 where a 422 belongs).
 */
const UpstreamId = NonBlankString.pipe(
  Schema.maxLength(UPSTREAM_ID_MAX, { message: () => `must be at most ${UPSTREAM_ID_MAX} characters` }),
  Schema.pattern(/^[A-Za-z0-9_-]+$/, { message: () => "must be an upstream id: letters, digits, _ and - only" })
)

/** An OAuth or embedded-signup code: opaque, and never this long (Meta's are a few hundred characters). */
const AuthorizationCode = NonBlankString.pipe(
  Schema.maxLength(AUTHORIZATION_CODE_MAX, { message: () => `must be at most ${AUTHORIZATION_CODE_MAX} characters` })
)

/** POST /platform/dashboard/channels/connect/chat: embedded-signup result. */
export const ConnectChat = requestBody(
  Schema.Struct({
    code: AuthorizationCode,
    phone_number_id: UpstreamId,
    waba_id: UpstreamId,
    /** The number's two-step verification PIN for registration; a random one is set when omitted. */
    pin: optional(Schema.String.pipe(Schema.pattern(/^\d{6}$/, { message: () => "must be 6 digits" })))
  }),
  "ConnectChat"
)
export type ConnectChat = typeof ConnectChat.Type

/** POST /platform/dashboard/channels/connect/social: OAuth code and the dialog's redirect_uri. */
export const ConnectSocial = requestBody(
  Schema.Struct({
    code: AuthorizationCode,
    redirect_uri: NonBlankString.pipe(Schema.maxLength(TARGET_URL_MAX, { message: () => `must be at most ${TARGET_URL_MAX} characters` })),
    /** Which Instagram account to connect when the login granted several; the first one Meta lists otherwise. */
    social_id: optional(UpstreamId)
  }),
  "ConnectSocial"
)
export type ConnectSocial = typeof ConnectSocial.Type

/**
 * PATCH /platform/dashboard/channels/{id}/webhook: raw-forward target. `webhook_url: null`
 * turns raw forward off (and forgets the secret); a first URL or `regenerate_secret` creates a secret
 * (`regenerate_secret` with no URL set, or with `webhook_url: null`, is 422: there is no secret to make).
 */
export const ChannelWebhookUpdate = requestBody(
  Schema.Struct({
    webhook_url: optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2083)))),
    regenerate_secret: optional(Schema.Boolean)
  }),
  "ChannelWebhookUpdate"
)
export type ChannelWebhookUpdate = typeof ChannelWebhookUpdate.Type

/** The raw-forward configuration; `webhook_secret` only when it was just created (shown once). */
export const ChannelWebhook = Schema.Struct({
  channel_id: Id,
  webhook_url: Schema.NullOr(Schema.String),
  has_webhook_secret: Schema.Boolean,
  webhook_secret: optional(Schema.String)
}).annotations({ identifier: "ChannelWebhook" })
export type ChannelWebhook = typeof ChannelWebhook.Type

// Dashboard-only errors (coded bodies through `wire`, like errors.ts) -------------------

const coded = (status: number) => HttpApiSchema.annotations<any>({ status })
const message = (text: string) =>
  Schema.String.pipe(Schema.propertySignature, Schema.withConstructorDefault(() => text))

/** 409: signup or team add with an email that already has a user (signup) or membership (team). */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()(
  "EmailTaken",
  { message: message("a user with this email already exists") },
  coded(409)
) {
  static readonly code = "email_taken"
}

/** 403: a cookie request whose Origin / Sec-Fetch-Site is not this site (CSRF defence). */
export class CsrfRejected extends Schema.TaggedError<CsrfRejected>()(
  "CsrfRejected",
  { message: message("cross-site request refused") },
  coded(403)
) {
  static readonly code = "csrf_rejected"
}

/** 403: the member's role does not allow this operation. */
export class InsufficientRole extends Schema.TaggedError<InsufficientRole>()(
  "InsufficientRole",
  { message: message("your role does not allow this operation") },
  coded(403)
) {
  static readonly code = "insufficient_role"
}

/** 409: an account must keep one owner; a plan must fit the account's connected channels. */
export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { message: message("the request conflicts with the current state") },
  coded(409)
) {
  static readonly code = "conflict"
}
