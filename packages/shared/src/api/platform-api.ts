import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { DatabaseUnavailable, wire } from "../errors.js"
import { BroadcastsGroup } from "./broadcasts.js"
import { ChannelsGroup } from "./channels.js"
import { ContactsGroup } from "./contacts.js"
import { ConversationsGroup } from "./conversations.js"
import { DashboardAccountGroup } from "./dashboard-account.js"
import { DashboardApiKeysGroup } from "./dashboard-api-keys.js"
import { DashboardChannelsGroup } from "./dashboard-channels.js"
import { DashboardContactsGroup, DashboardConversationsGroup, DashboardMessagesGroup } from "./dashboard-data.js"
import { DashboardSessionGroup } from "./dashboard-session.js"
import { DashboardTeamGroup } from "./dashboard-team.js"
import { EventsGroup } from "./events-stream.js"
import { HealthGroup } from "./health.js"
import { MediaGroup } from "./media.js"
import { MessageHistoryGroup } from "./message-history.js"
import { MessagesGroup } from "./messages.js"
import { documentContract } from "./openapi-document.js"
import { routeTable } from "./route-table.js"
import { TemplatesGroup } from "./templates.js"
import { DeliveriesGroup } from "./webhook-deliveries.js"
import { SubscriptionsGroup } from "./webhook-subscriptions.js"

const contract = HttpApi.make("platform")
  .add(HealthGroup)
  .add(ChannelsGroup)
  .add(MessagesGroup)
  .add(MediaGroup)
  .add(TemplatesGroup)
  .add(SubscriptionsGroup)
  .add(DeliveriesGroup)
  .add(MessageHistoryGroup)
  .add(ConversationsGroup)
  .add(ContactsGroup)
  .add(BroadcastsGroup)
  .add(EventsGroup)
  .add(DashboardSessionGroup)
  .add(DashboardAccountGroup)
  .add(DashboardApiKeysGroup)
  .add(DashboardTeamGroup)
  .add(DashboardChannelsGroup)
  .add(DashboardMessagesGroup)
  .add(DashboardConversationsGroup)
  .add(DashboardContactsGroup)
  // Any route that reaches the database may find it unreachable (DESIGN §9).
  .addError(wire(DatabaseUnavailable))

/**
 * The whole HTTP contract of the platform. The server implements it, the
 * OpenAPI document is generated from it (then made to state the route table and
 * the 422s the server answers: openapi-document.ts), and the route/scope table test walks it.
 */
export class PlatformApi extends contract.annotateContext(OpenApi.annotations({
  title: "Messaging Developer Platform API",
  version: "platform-v1",
  description: "Send and receive WhatsApp, Instagram and Messenger messages through one HTTP API.",
  license: { name: "MIT", url: "https://opensource.org/license/mit" },
  // Paths are absolute from the origin, so the server is the one that served this document
  // (wherever it runs: `npm start` listens on http://localhost:8080).
  servers: [{ url: "/", description: "The server that serves this document" }],
  transform: (spec) => documentContract(spec, routeTable(contract))
})) {}
