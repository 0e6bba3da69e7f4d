import { HttpApi, OpenApi } from "@effect/platform"
import { ChannelsGroup } from "./channels.js"
import { ConversationsGroup } from "./conversations.js"
import { DashboardAccountGroup } from "./dashboard-account.js"
import { DashboardApiKeysGroup } from "./dashboard-api-keys.js"
import { DashboardChannelsGroup } from "./dashboard-channels.js"
import { DashboardSessionGroup } from "./dashboard-session.js"
import { DashboardTeamGroup } from "./dashboard-team.js"
import { EventsGroup } from "./events-stream.js"
import { HealthGroup } from "./health.js"
import { MediaGroup } from "./media.js"
import { MessagesGroup } from "./messages.js"
import { DeliveriesGroup } from "./webhook-deliveries.js"
import { SubscriptionsGroup } from "./webhook-subscriptions.js"

/**
 * The whole HTTP contract of the platform. The server implements it, the
 * OpenAPI document is generated from it, and the route/scope table test walks it.
 */
export class PlatformApi extends HttpApi.make("platform")
  .add(HealthGroup)
  .add(ChannelsGroup)
  .add(MessagesGroup)
  .add(MediaGroup)
  .add(SubscriptionsGroup)
  .add(DeliveriesGroup)
  .add(ConversationsGroup)
  .add(EventsGroup)
  .add(DashboardSessionGroup)
  .add(DashboardAccountGroup)
  .add(DashboardApiKeysGroup)
  .add(DashboardTeamGroup)
  .add(DashboardChannelsGroup)
  .annotateContext(OpenApi.annotations({
    title: "Messaging Developer Platform API",
    version: "platform-v1",
    description: "Send and receive WhatsApp, Instagram and Messenger messages through one HTTP API."
  }))
{}
