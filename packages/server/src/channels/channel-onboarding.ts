import { BadRequest, UpstreamFailure } from "@platform/shared"
import { Effect, Option, Redacted } from "effect"
import { randomInt } from "node:crypto"
import { AppConfig } from "../config.js"
import type { ChannelCredentials } from "../upstream/credentials.js"
import {
  redactSecrets,
  type UpstreamError,
  type UpstreamRequestInvalid,
  type UpstreamThrottled,
  type UpstreamTimeout
} from "../upstream/errors.js"
import { SandboxState } from "../upstream/sandbox/state.js"
import { Upstream } from "../upstream/upstream.js"
import type { QualityRating } from "../upstream/webhook-payload.js"

/** What connecting a chat channel (embedded signup) yields for the channel row. */
export interface ChatConnection {
  readonly access_token: Redacted.Redacted<string>
  /** The number's verified business name. */
  readonly name: string | null
  readonly display_phone_number: string | null
  readonly quality_rating: QualityRating | null
  /** From the number's throughput level when the upstream reports it; null means the default. */
  readonly throughput_per_second: number | null
}

export interface SocialConnection {
  /** The Page token when Meta hands one out (Instagram messaging acts as the Page), the user token otherwise. */
  readonly access_token: Redacted.Redacted<string>
  /** The Instagram professional account id: the channel's upstream identifier. */
  readonly social_id: string
  readonly name: string | null
  readonly username: string | null
}

type StepFailure = UpstreamError | UpstreamTimeout | UpstreamThrottled | UpstreamRequestInvalid

/** Messages per second of a WhatsApp throughput level (STANDARD 80, HIGH 1,000). */
const THROUGHPUT_BY_LEVEL: Readonly<Record<string, number>> = { STANDARD: 80, HIGH: 1000 }

/** A plausible display number for a sandbox line, stable per phone number id. */
const sandboxDisplayNumber = (phoneNumberId: string) => {
  const d = phoneNumberId.replace(/\D/g, "").padStart(7, "0").slice(-7)
  return `+1 555-${d.slice(0, 3)}-${d.slice(3)}`
}

/**
 * The upstream side of channel connect, over the `Upstream` service in both modes
 * (with UPSTREAM=sandbox it talks HTTP to the simulator mounted in this server).
 * Chat: exchange the embedded-signup code for a business token, register the number
 * (two-step PIN), subscribe the app to the WABA, then read the number's display data,
 * quality rating and throughput. Social: exchange the OAuth code, list the user's
 * Pages and take the linked Instagram account. Every upstream failure becomes a
 * coded `UpstreamFailure` (502) whose message names the step and Meta's code and
 * never carries a token. `Channels` owns the transaction and the event.
 */
export class ChannelOnboarding extends Effect.Service<ChannelOnboarding>()("@platform/server/ChannelOnboarding", {
  effect: Effect.gen(function*() {
    const upstream = yield* Upstream
    const config = yield* AppConfig
    const sandbox = config.upstream === "sandbox" ? yield* Effect.serviceOption(SandboxState) : Option.none()

    /** Maps a failed step to the dashboard's 502, scrubbing `secrets` once more, and logs it without them. */
    const step = <A>(name: string, effect: Effect.Effect<A, StepFailure>, secrets: ReadonlyArray<string> = []) =>
      effect.pipe(
        Effect.catchAll((e) => {
          const detail = e._tag === "UpstreamError"
            ? [
              e.meta_code !== null ? `code ${e.meta_code}` : null,
              e.meta_subcode !== null ? `subcode ${e.meta_subcode}` : null,
              e.fbtrace_id !== null ? `fbtrace_id ${e.fbtrace_id}` : null
            ].filter((x) => x !== null).join(", ")
            : ""
          const message = redactSecrets(`${name} failed at the upstream: ${e.message}${detail ? ` (${detail})` : ""}`, secrets)
          return Effect.logWarning("channel connect failed at the upstream").pipe(
            Effect.annotateLogs({
              step: name,
              error: e._tag,
              kind: e._tag === "UpstreamError" ? e.kind : "",
              meta_code: e._tag === "UpstreamError" ? String(e.meta_code) : ""
            }),
            Effect.zipRight(Effect.fail(new UpstreamFailure({ message })))
          )
        })
      )

    const connectChat = Effect.fn("ChannelOnboarding.connectChat")(function*(input: {
      readonly code: string
      readonly phone_number_id: string
      readonly waba_id: string
      readonly pin?: string | undefined
    }) {
      // The simulator plays Meta, which already knows the number's WABA and display
      // number before signup: link first, so callbacks carry entry[].id = the WABA.
      if (Option.isSome(sandbox)) {
        yield* sandbox.value.linkChannel({
          phone_number_id: input.phone_number_id,
          waba_id: input.waba_id,
          display_phone_number: sandboxDisplayNumber(input.phone_number_id)
        })
      }
      const exchanged = yield* step("code exchange", upstream.exchangeCode(input.code), [input.code])
      const token = Redacted.value(exchanged.access_token)
      const creds: ChannelCredentials = {
        kind: "chat",
        id: 0,
        phone_number_id: input.phone_number_id,
        waba_id: input.waba_id,
        access_token: exchanged.access_token
      }
      const pin = input.pin ?? String(randomInt(0, 1_000_000)).padStart(6, "0")
      yield* step("phone number registration", upstream.registerPhoneNumber(creds, pin), [token, pin])
      yield* step("app subscription", upstream.subscribeApp(creds), [token])
      // Display data, quality and throughput are worth having but not worth failing a
      // connect whose code is already spent: a failed lookup leaves them empty.
      const info = yield* upstream.getPhoneNumber(creds).pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) =>
          Effect.logWarning("phone number lookup failed on connect").pipe(
            Effect.annotateLogs({ error: e._tag, meta_code: e._tag === "UpstreamError" ? String(e.meta_code) : "" }),
            Effect.as(Option.none())
          )
        )
      )
      return {
        access_token: exchanged.access_token,
        name: Option.isSome(info) ? info.value.verified_name : null,
        display_phone_number: Option.isSome(info) ? info.value.display_phone_number : null,
        quality_rating: Option.isSome(info) ? Option.getOrNull(info.value.quality_rating) : null,
        throughput_per_second: Option.isSome(info) && info.value.throughput_level !== null
          ? THROUGHPUT_BY_LEVEL[info.value.throughput_level] ?? null
          : null
      } satisfies ChatConnection
    })

    /*
     * Several Instagram accounts: the login may grant several Pages. `social_id` picks
     * one; without it the first Page (in Meta's order) with a linked Instagram
     * professional account is connected. Pages without one are skipped.
     */
    const connectSocial = Effect.fn("ChannelOnboarding.connectSocial")(function*(input: {
      readonly code: string
      readonly redirect_uri: string
      readonly social_id?: string | undefined
    }) {
      const exchanged = yield* step(
        "code exchange",
        upstream.exchangeSocialCode(input.code, input.redirect_uri),
        [input.code]
      )
      const userToken = Redacted.value(exchanged.access_token)
      const pages = yield* step("Instagram account listing", upstream.listSocialAccounts(exchanged.access_token), [userToken])
      const linked = pages.filter((p) => p.instagram_account_id !== null)
      const chosen = input.social_id === undefined
        ? linked[0]
        : linked.find((p) => p.instagram_account_id === input.social_id)
      if (chosen === undefined) {
        return yield* new BadRequest({
          message: input.social_id === undefined
            ? "the login granted no Facebook Page with a linked Instagram professional account"
            : `the login did not grant the Instagram account ${input.social_id} (granted: ${
              linked.map((p) => p.instagram_account_id).join(", ") || "none"
            })`
        })
      }
      return {
        access_token: chosen.page_access_token ?? exchanged.access_token,
        social_id: chosen.instagram_account_id!,
        name: chosen.name,
        username: chosen.instagram_username
      } satisfies SocialConnection
    })

    return { connectChat, connectSocial } as const
  })
}) {}
