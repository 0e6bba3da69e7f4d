import { lazy, type ReactNode, Suspense } from "react"
import { Loading } from "./components/states"
import { AccountPage } from "./routes/account/account-page"
import { ApiKeysPage } from "./routes/api-keys/api-keys-page"
import { ChannelPage } from "./routes/channel/channel-page"
import { ChannelsPage } from "./routes/channels/channels-page"
import { ContactsPage } from "./routes/contacts/contacts-page"
import { ConversationPage } from "./routes/conversation/conversation-page"
import { ConversationsPage } from "./routes/conversations/conversations-page"
import { DeliveriesPage } from "./routes/deliveries/deliveries-page"
import { DeliveryPage } from "./routes/deliveries/delivery-page"
import { EventsPage } from "./routes/events/events-page"
import { MessagesPage } from "./routes/messages/messages-page"
import { OverviewPage } from "./routes/overview/overview-page"
import { BroadcastPage } from "./routes/broadcast/broadcast-page"
import { NewBroadcastPage } from "./routes/broadcast-new/new-broadcast-page"
import { BroadcastsPage } from "./routes/broadcasts/broadcasts-page"
import { SandboxPage } from "./routes/sandbox/sandbox-page"
import { SubscriptionPage } from "./routes/subscription/subscription-page"
import { SubscriptionsPage } from "./routes/webhooks/subscriptions-page"
import { TemplatesPage } from "./routes/templates/templates-page"
import { Link, type Location } from "./router"

// The template builder (new and edit) is its own chunk, loaded when one of its pages opens.
const NewTemplatePage = lazy(() => import("./routes/template-new/new-template-page").then((m) => ({ default: m.NewTemplatePage })))
const TemplatePage = lazy(() => import("./routes/template/template-page").then((m) => ({ default: m.TemplatePage })))
const later = (node: ReactNode) => <Suspense fallback={<Loading what="the page" />}>{node}</Suspense>

/** The signed-in pages by path (the document title too); a new page is one row here and one in the nav. */
const PAGES: ReadonlyArray<{ readonly path: RegExp; readonly title: string; readonly render: (l: Location, m: RegExpMatchArray) => ReactNode }> = [
  { path: /^\/$/, title: "Overview", render: () => <OverviewPage /> },
  { path: /^\/api-keys$/, title: "API keys", render: () => <ApiKeysPage /> },
  { path: /^\/channels$/, title: "Channels", render: () => <ChannelsPage /> },
  { path: /^\/channels\/(\d+)$/, title: "Channel", render: (_, m) => <ChannelPage id={m[1]!} /> },
  { path: /^\/webhooks$/, title: "Webhooks", render: (l) => <SubscriptionsPage location={l} /> },
  { path: /^\/webhooks\/deliveries$/, title: "Deliveries", render: (l) => <DeliveriesPage location={l} /> },
  { path: /^\/webhooks\/deliveries\/(\d+)$/, title: "Delivery", render: (_, m) => <DeliveryPage id={m[1]!} /> },
  { path: /^\/webhooks\/(\d+)$/, title: "Subscription", render: (_, m) => <SubscriptionPage id={m[1]!} /> },
  { path: /^\/templates$/, title: "Templates", render: (l) => <TemplatesPage location={l} /> },
  { path: /^\/templates\/new$/, title: "New template", render: () => later(<NewTemplatePage />) },
  { path: /^\/templates\/(\d+)$/, title: "Template", render: (_, m) => later(<TemplatePage key={m[1]} id={m[1]!} />) },
  { path: /^\/broadcasts$/, title: "Broadcasts", render: (l) => <BroadcastsPage location={l} /> },
  { path: /^\/broadcasts\/new$/, title: "New broadcast", render: () => <NewBroadcastPage /> },
  { path: /^\/broadcasts\/(\d+)$/, title: "Broadcast", render: (l, m) => <BroadcastPage id={m[1]!} location={l} /> },
  { path: /^\/account$/, title: "Account", render: () => <AccountPage /> },
  { path: /^\/events$/, title: "Live events", render: (l) => <EventsPage location={l} /> },
  { path: /^\/sandbox$/, title: "Sandbox", render: () => <SandboxPage /> },
  { path: /^\/messages$/, title: "Messages", render: (l) => <MessagesPage location={l} /> },
  { path: /^\/conversations$/, title: "Conversations", render: (l) => <ConversationsPage location={l} /> },
  { path: /^\/conversations\/(\d+)$/, title: "Conversation", render: (l, m) => <ConversationPage id={m[1]!} location={l} /> },
  { path: /^\/contacts$/, title: "Contacts", render: (l) => <ContactsPage location={l} /> }
]

export const pageFor = (location: Location): { title: string; node: ReactNode } => {
  for (const page of PAGES) {
    const match = location.path.match(page.path)
    if (match) return { title: page.title, node: page.render(location, match) }
  }
  return {
    title: "Not found",
    node: <><h1>Page not found</h1><p>There is no console page at this address. <Link to="/">Go to the overview</Link>.</p></>
  }
}
