import { UpstreamFailure } from "@platform/shared"
import { Context, Effect, Layer, Redacted } from "effect"
import { randomBytes, randomInt } from "node:crypto"

/** What an embedded-signup (chat) or OAuth (social) code exchange yields. */
export interface ChatConnection {
  readonly access_token: Redacted.Redacted<string>
  readonly name: string | null
  readonly display_phone_number: string | null
}

export interface SocialConnection {
  readonly access_token: Redacted.Redacted<string>
  /** The Instagram professional account (or Page) id: the channel's upstream identifier. */
  readonly social_id: string
  readonly name: string | null
  readonly username: string | null
}

export interface ChannelOnboardingShape {
  readonly exchangeChatCode: (input: {
    readonly code: string
    readonly phone_number_id: string
    readonly waba_id: string
  }) => Effect.Effect<ChatConnection, UpstreamFailure>
  readonly exchangeSocialCode: (input: {
    readonly code: string
    readonly redirect_uri: string
  }) => Effect.Effect<SocialConnection, UpstreamFailure>
}

/**
 * The code exchanges of channel connect. The sandbox accepts any code and returns a
 * fake token; the Meta implementation belongs on the `Upstream` service
 * (upstream/onboarding.ts: exchangeCode, exchangeSocialCode + listSocialAccounts,
 * and the phone number's display data), provided in place of `Sandbox` with UPSTREAM=meta.
 */
export class ChannelOnboarding extends Context.Tag("@platform/server/ChannelOnboarding")<
  ChannelOnboarding,
  ChannelOnboardingShape
>() {
  static readonly Sandbox = Layer.succeed(ChannelOnboarding, {
    exchangeChatCode: ({ phone_number_id }) =>
      Effect.succeed({
        access_token: Redacted.make(`sandbox_token_${randomBytes(24).toString("hex")}`),
        name: "Sandbox business",
        display_phone_number: `+1 555 01${phone_number_id.replace(/\D/g, "").slice(-2).padStart(2, "0")}`
      }),
    exchangeSocialCode: () =>
      Effect.succeed({
        access_token: Redacted.make(`sandbox_token_${randomBytes(24).toString("hex")}`),
        social_id: `1784${String(randomInt(1e9, 1e10))}${String(randomInt(100, 1000))}`,
        name: "Sandbox page",
        username: "sandbox.business"
      })
  })
}
