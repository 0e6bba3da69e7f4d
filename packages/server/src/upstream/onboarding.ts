import { Effect, Redacted, Schema } from "effect"
import { type GraphClient, requireChat, requireWaba, Success } from "./client.js"
import type { ChannelCredentials } from "./credentials.js"
import { UpstreamRequestInvalid } from "./errors.js"

const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number)
})

const AccountsResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    name: Schema.optional(Schema.String),
    access_token: Schema.optional(Schema.String),
    instagram_business_account: Schema.optional(Schema.Struct({
      id: Schema.String,
      username: Schema.optional(Schema.String)
    }))
  }))
})

export interface ExchangedToken {
  readonly access_token: Redacted.Redacted<string>
  readonly token_type: string
  /** Seconds; null for the non-expiring business tokens of embedded signup. */
  readonly expires_in: number | null
}

export interface SocialAccount {
  readonly page_id: string
  readonly name: string | null
  readonly page_access_token: Redacted.Redacted<string> | null
  /** The Instagram professional account linked to the Page: the social channel's social_id. */
  readonly instagram_account_id: string | null
  readonly instagram_username: string | null
}

export const makeOnboardingApi = (
  graph: GraphClient,
  app: { readonly appId: string; readonly appSecret: Redacted.Redacted<string> }
) => {
  /*
   * The code exchange goes as a form POST rather than Meta's documented GET: the
   * app secret and the code then never sit in a URL, so no access log or span sees them.
   */
  const exchange = (operation: string, code: string, redirectUri: string | undefined) =>
    Effect.gen(function*() {
      if (code.length === 0) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "code is required" }))
      }
      const res = yield* graph.call({
        operation,
        method: "POST",
        path: "/oauth/access_token",
        form: {
          client_id: app.appId,
          client_secret: Redacted.value(app.appSecret),
          code,
          ...(redirectUri ? { redirect_uri: redirectUri } : {})
        },
        secrets: [code]
      }, TokenResponse)
      return {
        access_token: Redacted.make(res.access_token),
        token_type: res.token_type ?? "bearer",
        expires_in: res.expires_in ?? null
      } satisfies ExchangedToken
    })

  /** Embedded signup: exchanges the signup code for a business integration token. */
  const exchangeCode = (code: string) => exchange("onboarding.exchange_code", code, undefined)

  /** Facebook Login for social channels: exchanges the OAuth code (same redirect_uri as the dialog). */
  const exchangeSocialCode = (code: string, redirectUri: string) =>
    exchange("onboarding.exchange_social_code", code, redirectUri)

  /** `GET /me/accounts`: the user's Pages, their Page tokens and linked Instagram accounts. */
  const listSocialAccounts = (userToken: Redacted.Redacted<string>) =>
    Effect.map(
      graph.call({
        operation: "onboarding.social_accounts",
        method: "GET",
        path: "/me/accounts",
        query: { fields: "id,name,access_token,instagram_business_account{id,username}" },
        token: userToken
      }, AccountsResponse),
      (res) =>
        res.data.map((p): SocialAccount => ({
          page_id: p.id,
          name: p.name ?? null,
          page_access_token: p.access_token ? Redacted.make(p.access_token) : null,
          instagram_account_id: p.instagram_business_account?.id ?? null,
          instagram_username: p.instagram_business_account?.username ?? null
        }))
    )

  /** `POST /{phone_number_id}/register` with the two-step PIN, on connect. */
  const registerPhoneNumber = (creds: ChannelCredentials, pin: string) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "phone number registration")
      if (!/^\d{6}$/.test(pin)) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "pin must be 6 digits" }))
      }
      yield* graph.call({
        operation: "onboarding.register",
        method: "POST",
        path: `/${pnid}/register`,
        token: creds.access_token,
        json: { messaging_product: "whatsapp", pin },
        secrets: [pin]
      }, Success)
      return { success: true as const }
    })

  /** `POST /{waba_id}/subscribed_apps`: makes Meta send the WABA's webhooks to this app. */
  const subscribeApp = (creds: ChannelCredentials) =>
    Effect.gen(function*() {
      const waba = yield* requireWaba(creds, "app subscription")
      yield* graph.call({
        operation: "onboarding.subscribe_app",
        method: "POST",
        path: `/${waba}/subscribed_apps`,
        token: creds.access_token
      }, Success)
      return { success: true as const }
    })

  return { exchangeCode, exchangeSocialCode, listSocialAccounts, registerPhoneNumber, subscribeApp }
}
