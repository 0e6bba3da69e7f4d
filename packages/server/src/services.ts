import { Layer } from "effect"
import { RateLimiter } from "./auth/rate-limiter.js"
import { Secrets } from "./crypto/secrets.js"
import { DeliveryWakeup } from "./delivery/wakeup.js"
import { Shutdown } from "./jobs/shutdown.js"
import { UpstreamLive } from "./upstream/live.js"
import { Accounts } from "./accounts/accounts.js"
import { ApiKeys } from "./auth/api-keys.js"
import { BroadcastSender } from "./broadcasts/broadcast-sender.js"
import { Broadcasts } from "./broadcasts/broadcasts.js"
import { ChannelCredentialsCache } from "./channels/channel-credentials.js"
import { ChannelOnboarding } from "./channels/channel-onboarding.js"
import { ChannelOperations } from "./channels/channel-operations.js"
import { Channels } from "./channels/channels.js"
import { Contacts } from "./contacts/contacts.js"
import { Events } from "./outbox/events.js"
import { HeldOutcomes } from "./messages/held-outcomes.js"
import { Idempotency } from "./messages/idempotency.js"
import { Media } from "./media/media.js"
import { MessageHistory } from "./messages/message-history.js"
import { Messages } from "./messages/messages.js"
import { SandboxInbound } from "./channels/sandbox-inbound.js"
import { Sessions } from "./auth/sessions.js"
import { Templates } from "./templates/templates.js"
import { Usage } from "./accounts/usage.js"
import { Conversations } from "./conversations/conversations.js"
import { Deliveries } from "./webhooks/deliveries.js"
import { EventStream } from "./events/event-stream.js"
import { Subscriptions } from "./webhooks/subscriptions.js"

/**
 * What the services stand on besides the database and the configuration: the upstream
 * (the simulator over HTTP in sandbox mode, or Meta), secrets at rest, the outbox,
 * wake-ups, the rate limiter and the process's Shutdown (the one stop deadline). The workers
 * take it too.
 */
export const KernelLive = Layer.mergeAll(UpstreamLive, Secrets.Default, Events.Default, DeliveryWakeup.Default, RateLimiter.Live, Shutdown.Default)

/**
 * Accounts, sessions, keys, usage, channels, messaging, the stored history and contacts,
 * templates, broadcasts, media. Each service declares the services it uses (its
 * `dependencies`), so a worker provides only its own; one instance each per process all
 * the same, as layers are memoized by reference (the key cache, the channel credentials
 * cache and the in-process rate limiter are state).
 */
export const DomainLive = Layer.mergeAll(
  Broadcasts.Default,
  BroadcastSender.Default,
  ApiKeys.Default,
  Sessions.Default,
  Accounts.Default,
  Channels.Default,
  ChannelOperations.Default,
  ChannelOnboarding.Default,
  ChannelCredentialsCache.Default,
  MessageHistory.Default,
  Messages.Default,
  Idempotency.Default,
  HeldOutcomes.Default,
  Usage.Default,
  Contacts.Default,
  Media.Default,
  Templates.Default,
  SandboxInbound.Default
).pipe(Layer.provideMerge(KernelLive))

/** Subscriptions, deliveries, the conversation status change and the event stream. */
export const DeliveryDomainLive = Layer.mergeAll(
  Subscriptions.Default,
  Deliveries.Default,
  Conversations.Default,
  EventStream.Default
)
