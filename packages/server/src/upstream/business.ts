import { Effect, type Option, Schema } from "effect"
import { type GraphClient, requireChat, Success } from "./client.js"
import type { ChannelCredentials } from "./credentials.js"
import { UpstreamRequestInvalid } from "./errors.js"
import { extractQualityRating, type QualityRating } from "./webhook-payload.js"

export interface BusinessProfile {
  readonly about: string | null
  readonly address: string | null
  readonly description: string | null
  readonly email: string | null
  readonly profile_picture_url: string | null
  readonly websites: ReadonlyArray<string>
  readonly vertical: string | null
}

/** SPEC §4.8 profile body: only provided fields are sent upstream. */
export interface BusinessProfileUpdate {
  readonly about?: string | undefined
  readonly address?: string | undefined
  readonly description?: string | undefined
  readonly email?: string | undefined
  readonly profile_picture_handle?: string | undefined
  readonly vertical?: string | undefined
  readonly websites?: ReadonlyArray<string> | undefined
}

const opt = Schema.optional
const ProfileResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    about: opt(Schema.String),
    address: opt(Schema.String),
    description: opt(Schema.String),
    email: opt(Schema.String),
    profile_picture_url: opt(Schema.String),
    websites: opt(Schema.Array(Schema.String)),
    vertical: opt(Schema.String)
  }))
})

const PhoneNumberResponse = Schema.Struct({
  id: Schema.String,
  display_phone_number: opt(Schema.String),
  verified_name: opt(Schema.String),
  quality_rating: opt(Schema.String),
  name_status: opt(Schema.String),
  new_name_status: opt(Schema.String),
  code_verification_status: opt(Schema.String),
  platform_type: opt(Schema.String),
  messaging_limit_tier: opt(Schema.String),
  throughput: opt(Schema.Struct({ level: opt(Schema.String) }))
})

const HealthEntity = Schema.Struct({
  entity_type: Schema.String,
  id: Schema.String,
  can_send_message: Schema.String,
  errors: opt(Schema.Array(Schema.Struct({
    error_code: opt(Schema.Number),
    error_description: opt(Schema.String),
    possible_solution: opt(Schema.String)
  }))),
  additional_info: opt(Schema.Array(Schema.String))
})
const HealthResponse = Schema.Struct({
  id: opt(Schema.String),
  health_status: Schema.Struct({
    can_send_message: Schema.String,
    entities: Schema.Array(HealthEntity)
  })
})
export type PhoneNumberHealth = typeof HealthResponse.Type["health_status"]

const BlockUserError = Schema.Struct({
  message: opt(Schema.String),
  // Meta documents an integer, and shows a string in one example.
  code: opt(Schema.Union(Schema.Number, Schema.String)),
  error_data: opt(Schema.Struct({ details: opt(Schema.String) }))
})
const BlockUser = Schema.Struct({
  input: Schema.String,
  wa_id: opt(Schema.String),
  errors: opt(Schema.Array(BlockUserError))
})

const blockErrorOf = (e: typeof BlockUserError.Type) => {
  const code = typeof e.code === "string" ? (/^\d{1,9}$/.test(e.code) ? Number(e.code) : null) : e.code ?? null
  const message = e.message ?? "refused by the upstream"
  const details = e.error_data?.details
  return { code: code !== null && Number.isInteger(code) ? code : null, message: details ? `${message}: ${details}` : message }
}
const BlockResponse = Schema.Struct({
  messaging_product: opt(Schema.String),
  block_users: Schema.Struct({
    added_users: opt(Schema.Array(BlockUser)),
    removed_users: opt(Schema.Array(BlockUser)),
    failed_users: opt(Schema.Array(BlockUser))
  })
})

export interface PhoneNumberInfo {
  readonly id: string
  readonly display_phone_number: string | null
  readonly verified_name: string | null
  /** Normalized to GREEN, YELLOW, RED or UNKNOWN; persist in platform_channels.quality_rating. */
  readonly quality_rating: Option.Option<QualityRating>
  readonly name_status: string | null
  readonly new_name_status: string | null
  readonly code_verification_status: string | null
  readonly throughput_level: string | null
  readonly messaging_limit_tier: string | null
}

export interface BlockResult {
  /** Users blocked (or unblocked) as Meta echoed them: the input and the resolved wa_id. */
  readonly succeeded: ReadonlyArray<{ readonly input: string; readonly wa_id: string | null }>
  /** Users the upstream refused, each with Meta's reasons (code, and message with its details). */
  readonly failed: ReadonlyArray<{
    readonly input: string
    readonly errors: ReadonlyArray<{ readonly code: number | null; readonly message: string }>
  }>
}

const MAX_BLOCK_USERS = 1000

export const makeBusinessApi = (graph: GraphClient) => {
  /** `GET /{phone_number_id}/whatsapp_business_profile`. */
  const getBusinessProfile = (creds: ChannelCredentials) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "business profile")
      const res = yield* graph.call({
        operation: "business.profile_get",
        method: "GET",
        path: `/${pnid}/whatsapp_business_profile`,
        query: { fields: "about,address,description,email,profile_picture_url,websites,vertical" },
        token: creds.access_token
      }, ProfileResponse)
      const p = res.data[0] ?? {}
      return {
        about: p.about ?? null,
        address: p.address ?? null,
        description: p.description ?? null,
        email: p.email ?? null,
        profile_picture_url: p.profile_picture_url ?? null,
        websites: p.websites ?? [],
        vertical: p.vertical ?? null
      } satisfies BusinessProfile
    })

  /** `POST /{phone_number_id}/whatsapp_business_profile` with the provided fields only. */
  const updateBusinessProfile = (creds: ChannelCredentials, update: BusinessProfileUpdate) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "business profile")
      const fields = Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined))
      yield* graph.call({
        operation: "business.profile_update",
        method: "POST",
        path: `/${pnid}/whatsapp_business_profile`,
        token: creds.access_token,
        json: { messaging_product: "whatsapp", ...fields }
      }, Success)
      return { updated: Object.keys(fields) }
    })

  /** `GET /{phone_number_id}`: identity, name review state, quality rating and throughput tier. */
  const getPhoneNumber = (creds: ChannelCredentials) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "phone number lookup")
      const res = yield* graph.call({
        operation: "business.phone_number",
        method: "GET",
        path: `/${pnid}`,
        query: {
          fields:
            "id,display_phone_number,verified_name,quality_rating,name_status,new_name_status,code_verification_status,platform_type,throughput,messaging_limit_tier"
        },
        token: creds.access_token
      }, PhoneNumberResponse)
      return {
        id: res.id,
        display_phone_number: res.display_phone_number ?? null,
        verified_name: res.verified_name ?? null,
        quality_rating: extractQualityRating(res),
        name_status: res.name_status ?? null,
        new_name_status: res.new_name_status ?? null,
        code_verification_status: res.code_verification_status ?? null,
        throughput_level: res.throughput?.level ?? null,
        messaging_limit_tier: res.messaging_limit_tier ?? null
      } satisfies PhoneNumberInfo
    })

  /** `GET /{phone_number_id}?fields=health_status`: can_send_message per entity. */
  const getHealth = (creds: ChannelCredentials) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "health")
      const res = yield* graph.call({
        operation: "business.health",
        method: "GET",
        path: `/${pnid}`,
        query: { fields: "health_status" },
        token: creds.access_token
      }, HealthResponse)
      return res.health_status
    })

  /** Display-name review state (`verified_name`, `name_status`, `new_name_status`). */
  const getDisplayName = (creds: ChannelCredentials) =>
    Effect.map(getPhoneNumber(creds), (p) => ({
      verified_name: p.verified_name,
      display_phone_number: p.display_phone_number,
      name_status: p.name_status,
      new_name_status: p.new_name_status
    }))

  const blockCall = (creds: ChannelCredentials, users: ReadonlyArray<string>, block: boolean) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, block ? "block users" : "unblock users")
      if (users.length === 0 || users.length > MAX_BLOCK_USERS) {
        return yield* Effect.fail(
          new UpstreamRequestInvalid({ code: "invalid_request", message: `users must hold 1..${MAX_BLOCK_USERS} entries` })
        )
      }
      const res = yield* graph.call({
        operation: block ? "business.block_users" : "business.unblock_users",
        method: block ? "POST" : "DELETE",
        path: `/${pnid}/block_users`,
        token: creds.access_token,
        json: { messaging_product: "whatsapp", block_users: users.map((user) => ({ user })) },
        partialResultOnError: true
      }, BlockResponse)
      const ok = (block ? res.block_users.added_users : res.block_users.removed_users) ?? []
      return {
        succeeded: ok.map((u) => ({ input: u.input, wa_id: u.wa_id ?? null })),
        failed: (res.block_users.failed_users ?? []).map((u) => ({ input: u.input, errors: (u.errors ?? []).map(blockErrorOf) }))
      } satisfies BlockResult
    })

  const blockUsers = (creds: ChannelCredentials, users: ReadonlyArray<string>) => blockCall(creds, users, true)
  const unblockUsers = (creds: ChannelCredentials, users: ReadonlyArray<string>) => blockCall(creds, users, false)

  /** `POST /{phone_number_id}` with `{pin}`: sets the two-step verification PIN. */
  const setTwoStepPin = (creds: ChannelCredentials, pin: string) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "two-step verification")
      if (!/^\d{6}$/.test(pin)) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "pin must be 6 digits" }))
      }
      yield* graph.call({
        operation: "business.two_step_pin",
        method: "POST",
        path: `/${pnid}`,
        token: creds.access_token,
        json: { pin },
        secrets: [pin]
      }, Success)
      return { success: true as const }
    })

  return {
    getBusinessProfile,
    updateBusinessProfile,
    getPhoneNumber,
    getHealth,
    getDisplayName,
    blockUsers,
    unblockUsers,
    setTwoStepPin
  }
}
