import { Layer } from "effect"
import { RateLimiter } from "../auth/rate-limiter.js"
import { Secrets } from "../crypto/secrets.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { UpstreamLive } from "../upstream/live.js"
import { Accounts } from "./accounts.js"
import { ApiKeys } from "./api-keys.js"
import { BroadcastSender } from "./broadcast-sender.js"
import { Broadcasts } from "./broadcasts.js"
import { ChannelCredentialsCache } from "./channel-credentials.js"
import { ChannelOnboarding } from "./channel-onboarding.js"
import { ChannelOperations } from "./channel-operations.js"
import { Channels } from "./channels.js"
import { Contacts } from "./contacts.js"
import { Events } from "./events.js"
import { Idempotency } from "./idempotency.js"
import { Media } from "./media.js"
import { MessageHistory } from "./message-history.js"
import { Messages } from "./messages.js"
import { SandboxInbound } from "./sandbox-inbound.js"
import { Sessions } from "./sessions.js"
import { Templates } from "./templates.js"
import { Usage } from "./usage.js"

/**
 * Accounts, sessions, keys, usage, channels, the outbox, messaging, the stored history and contacts, media, over
 * SqlClient and AppConfig. One instance each per process (the key cache, the channel
 * credentials cache and the in-process rate limiter are state). ChannelOnboarding runs
 * connect over the Upstream service in both modes (the simulator over HTTP in sandbox).
 * Broadcasts send through Messages, so Messages is provided to them.
 */
export const DomainLive = Layer.mergeAll(
  Broadcasts.Default,
  BroadcastSender.Default,
  ApiKeys.Default,
  Sessions.Default,
  Accounts.Default,
  Channels.Default,
  ChannelOperations.Default,
  MessageHistory.Default,
  Contacts.Default,
  Media.Default,
  Templates.Default,
  SandboxInbound.Default
).pipe(
  Layer.provideMerge(Messages.Default),
  Layer.provideMerge(ChannelOnboarding.Default),
  Layer.provideMerge(Layer.mergeAll(ChannelCredentialsCache.Default, Idempotency.Default, UpstreamLive)),
  Layer.provideMerge(Layer.mergeAll(Usage.Default, Events.Default, Secrets.Default, RateLimiter.Live, DeliveryWakeup.Default))
)
