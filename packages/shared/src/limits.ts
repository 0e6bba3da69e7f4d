import { Schema } from "effect"

/** Versioning (SPEC §9) and fixed header values (SPEC §6.2, §6.5). */
export const API_VERSION = "platform-v1" as const
export const API_PREFIX = "/platform/v1" as const
export const DASHBOARD_PREFIX = "/platform/dashboard" as const
export const USER_AGENT = "Service-Platform/1.0" as const
export const SESSION_COOKIE = "access_token_dev" as const
export const SESSION_TTL_DAYS = 7

/** Per-key rate limit (SPEC §8): sliding window of 60 s, 60 requests by default. */
export const RATE_LIMIT_WINDOW_SECONDS = 60
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60
/** The highest editable `rate_limit_per_minute`: in effect unlimited, and within the column's 32-bit integer. */
export const RATE_LIMIT_PER_MINUTE_MAX = 1_000_000_000
/** Recommended client backoff on a rate-limit 429 (SPEC §8). */
export const CLIENT_BACKOFF_SECONDS = [1, 2, 4, 8, 16] as const
export const CLIENT_BACKOFF_JITTER = 0.25

/**
 * Open `GET /platform/v1/events/stream` connections per account (each holds a poll
 * loop and a socket); one more is 429 `rate limit exceeded` with this Retry-After,
 * a slot freeing when a stream closes.
 */
export const EVENT_STREAMS_PER_ACCOUNT = 10
export const EVENT_STREAMS_RETRY_AFTER_SECONDS = 5

/** Plans (DESIGN §5); counters per calendar month (UTC); hard limits, no overage. */
export const PlanNames = ["free", "lite", "pro", "business"] as const
export const Plan = Schema.Literal(...PlanNames).annotations({ identifier: "Plan" })
export type Plan = typeof Plan.Type

export interface PlanLimits {
  readonly inbound_messages_per_month: number
  readonly template_messages_per_month: number
  readonly channels: number
  readonly broadcasts_enabled: boolean
  readonly broadcasts_per_month: number
  readonly broadcast_recipients_limit: number
}

export const PLAN_LIMITS: { readonly [P in Plan]: PlanLimits } = {
  free: {
    inbound_messages_per_month: 1_000,
    template_messages_per_month: 250,
    channels: 1,
    broadcasts_enabled: false,
    broadcasts_per_month: 0,
    broadcast_recipients_limit: 0
  },
  lite: {
    inbound_messages_per_month: 10_000,
    template_messages_per_month: 2_500,
    channels: 3,
    broadcasts_enabled: true,
    broadcasts_per_month: 20,
    broadcast_recipients_limit: 1_000
  },
  pro: {
    inbound_messages_per_month: 100_000,
    template_messages_per_month: 25_000,
    channels: 10,
    broadcasts_enabled: true,
    broadcasts_per_month: 100,
    broadcast_recipients_limit: 10_000
  },
  business: {
    inbound_messages_per_month: 1_000_000,
    template_messages_per_month: 250_000,
    channels: 50,
    broadcasts_enabled: true,
    broadcasts_per_month: 1_000,
    broadcast_recipients_limit: 100_000
  }
}

/** Deliveries: 5 attempts; delay before attempt n (SPEC §6.3, §6.5). */
export const MAX_DELIVERY_ATTEMPTS = 5
export const RETRY_DELAYS_MINUTES = [0, 1, 5, 30, 120] as const
export const RAW_FORWARD_DEAD_LETTER_DELAY_MINUTES = 360
export const DELIVERY_TIMEOUT_SECONDS = 10
export const RESPONSE_BODY_SNIPPET_BYTES = 512

/** Leases and periodic work (SPEC §3.2, §3.5, §3.6, §8). */
export const NORMALIZED_STUCK_LEASE_SECONDS = 30
export const RAW_FORWARD_LEASE_SECONDS = 120
export const RAW_FORWARD_SWEEP_INTERVAL_SECONDS = 10
export const INACTIVITY_SWEEP_INTERVAL_SECONDS = 60
export const BROADCAST_SEND_CYCLE_SECONDS = 30

/** Auto-pause of a subscription (SPEC §3.4). */
export const AUTO_PAUSE = {
  window_minutes: 15,
  min_deliveries: 20,
  min_failures: 10,
  failure_rate: 0.85,
  paused_reason: "auto_paused_high_failure_rate"
} as const

/** Lists (DESIGN §5). */
export const LIST_LIMIT_MIN = 1
export const LIST_LIMIT_MAX = 200
export const LIST_LIMIT_DEFAULT = 50

/** Templates (SPEC §2.2, §8). */
export const CAROUSEL_MIN_CARDS = 2
export const CAROUSEL_MAX_CARDS = 10
export const CODE_EXPIRATION_MINUTES_MIN = 1
export const CODE_EXPIRATION_MINUTES_MAX = 90

/** Messages (SPEC §4.1, §8; DESIGN §5). */
export const MARK_READ_MESSAGE_ID_MAX = 255
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255
export const IDEMPOTENCY_TTL_HOURS = 24

/** Contacts (SPEC §4.4). */
export const CONTACT_DISPLAY_NAME_MAX = 255

/** Subscriptions (SPEC §4.5, §8). */
export const SUBSCRIPTION_DESCRIPTION_MAX = 200
export const TARGET_URL_MIN = 1
export const TARGET_URL_MAX = 2083
export const BUFFER_WINDOW_SECONDS_MIN = 1
export const BUFFER_WINDOW_SECONDS_MAX = 60
export const BUFFER_MAX_BATCH_MIN = 1
export const BUFFER_MAX_BATCH_MAX = 100
export const INACTIVITY_MINUTES_MIN = 1
export const INACTIVITY_MINUTES_MAX = 1440
/**
 * Custom headers, names and values together (SPEC is silent; ours): receivers
 * commonly refuse header blocks beyond 8-16 KiB, and every delivery carries them.
 */
export const CUSTOM_HEADERS_MAX_BYTES = 8192

/** Broadcasts (SPEC §3.3, §8). */
export const BROADCAST_RECIPIENTS_PER_CALL = 1000
export const SCHEDULE_CLOCK_SKEW_SECONDS = 60

/** Channel connect (ours: SPEC is silent): upstream ids and signup codes are bounded before any upstream call. */
export const UPSTREAM_ID_MAX = 64
export const AUTHORIZATION_CODE_MAX = 2048

/** Channel operations (SPEC §4.8, DESIGN §5). */
export const PROFILE_ABOUT_MAX = 139
export const PROFILE_ADDRESS_MAX = 256
export const PROFILE_DESCRIPTION_MAX = 256
export const PROFILE_EMAIL_MAX = 128
export const PROFILE_WEBSITES_MAX = 2
export const BLOCK_USERS_MAX = 1000
export const TWO_FACTOR_PIN_LENGTH = 6

/** channel.* events carry only this many trailing characters of the upstream identifier. */
export const META_IDENTIFIER_SUFFIX_LENGTH = 4
