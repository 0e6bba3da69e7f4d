import type { Redacted } from "effect"

/**
 * What every `Upstream` method needs to act for one platform channel. The caller
 * decrypts the token; this module only ever holds it as `Redacted`.
 */
export interface ChannelCredentials {
  readonly kind: "chat" | "social"
  /** Platform channel id; named in UpstreamThrottled (the throttle is keyed by phone_number_id or social_id). */
  readonly id: number
  readonly phone_number_id?: string | undefined
  readonly waba_id?: string | undefined
  /** Instagram account id (or Page id) of a social channel. */
  readonly social_id?: string | undefined
  readonly access_token: Redacted.Redacted<string>
  /** Upgraded chat numbers get 1,000; default 80 (chat) and 300 (social). */
  readonly throughput_per_second?: number | undefined
}
