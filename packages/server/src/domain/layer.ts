import { Layer } from "effect"
import { RateLimiter } from "../auth/rate-limiter.js"
import { Secrets } from "../crypto/secrets.js"
import { Accounts } from "./accounts.js"
import { ApiKeys } from "./api-keys.js"
import { ChannelOnboarding } from "./channel-onboarding.js"
import { Channels } from "./channels.js"
import { Events } from "./events.js"
import { Sessions } from "./sessions.js"
import { Usage } from "./usage.js"

/**
 * Accounts, sessions, keys, usage, channels and the outbox, over SqlClient and
 * AppConfig. One instance each per process (the key cache and the in-process rate
 * limiter are state). ChannelOnboarding is the sandbox until the Upstream service
 * provides the Meta code exchanges.
 */
export const DomainLive = Layer.mergeAll(ApiKeys.Default, Sessions.Default, Accounts.Default, Channels.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(Usage.Default, Events.Default, Secrets.Default, RateLimiter.Live)),
  Layer.provideMerge(ChannelOnboarding.Sandbox)
)
