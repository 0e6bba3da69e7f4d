import type { Page } from "playwright-core"

/**
 * Every console page, in one list: the quality test (accessibility, 390 px layout) and the
 * screenshot walk (`npm run screenshots`) visit each. A new page is one row here.
 *
 * `path` builds the page's URL under /dashboard from the ids of a prepared account
 * (`Fixture`); `ready` waits for the page's content rather than its loading state (the
 * helpers below cover most pages: its level-1 heading, then no "Loading …" left).
 */
export interface ConsolePage {
  /** A file-name-safe name: the screenshot's and the failure message's. */
  readonly name: string
  readonly path: (f: Fixture) => string
  /** The level-1 heading the page shows once loaded (a string is matched exactly). */
  readonly heading: string | RegExp
  /** Shown without a session (the login and sign-up pages). */
  readonly signedOut?: true
  /** What else to wait for once the heading is there (a row, a form). */
  readonly ready?: (page: Page) => Promise<void>
}

/** The ids of a prepared account that the pages' URLs need; new pages may add some. */
export interface Fixture {
  readonly channelId: number
  readonly subscriptionId: number
  readonly deliveryId: number
  readonly conversationId: number
  readonly templateId: number
  readonly broadcastId: number
}

export const CONSOLE_PAGES: ReadonlyArray<ConsolePage> = [
  { name: "login", path: () => "/dashboard/login", heading: "Log in", signedOut: true },
  { name: "signup", path: () => "/dashboard/signup", heading: "Create your account", signedOut: true },
  { name: "overview", path: () => "/dashboard", heading: /.+/, ready: (p) => p.getByText("Inbound messages").waitFor() },
  { name: "api-keys", path: () => "/dashboard/api-keys", heading: "API keys", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "channels", path: () => "/dashboard/channels", heading: "Channels", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "channel", path: (f) => `/dashboard/channels/${f.channelId}`, heading: /^Channel \d+/, ready: (p) => p.getByRole("heading", { name: "Business profile" }).waitFor() },
  { name: "webhooks", path: () => "/dashboard/webhooks", heading: "Webhooks", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "subscription", path: (f) => `/dashboard/webhooks/${f.subscriptionId}`, heading: /^Subscription \d+/, ready: (p) => p.locator("dl.facts").waitFor() },
  { name: "deliveries", path: () => "/dashboard/webhooks/deliveries", heading: "Deliveries", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "delivery", path: (f) => `/dashboard/webhooks/deliveries/${f.deliveryId}`, heading: /^Delivery \d+/, ready: (p) => p.getByTestId("envelope").waitFor() },
  { name: "messages", path: () => "/dashboard/messages", heading: "Messages", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "conversations", path: () => "/dashboard/conversations", heading: "Conversations", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "conversation", path: (f) => `/dashboard/conversations/${f.conversationId}`, heading: /^Conversation \d+/ },
  { name: "contacts", path: () => "/dashboard/contacts", heading: "Contacts", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "templates", path: () => "/dashboard/templates", heading: "Templates", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "template-new", path: () => "/dashboard/templates/new", heading: "New template" },
  { name: "template", path: (f) => `/dashboard/templates/${f.templateId}`, heading: /^console_fixture_/, ready: (p) => p.getByTestId("template-status").waitFor() },
  { name: "broadcasts", path: () => "/dashboard/broadcasts", heading: "Broadcasts", ready: (p) => p.getByRole("table").first().waitFor() },
  { name: "broadcast-new", path: () => "/dashboard/broadcasts/new", heading: "New broadcast" },
  { name: "broadcast", path: (f) => `/dashboard/broadcasts/${f.broadcastId}`, heading: "Console fixture" },
  { name: "events", path: () => "/dashboard/events", heading: "Live events" },
  { name: "sandbox", path: () => "/dashboard/sandbox", heading: "Sandbox" },
  { name: "account", path: () => "/dashboard/account", heading: "Account" },
  { name: "not-found", path: () => "/dashboard/no-such-page", heading: "Page not found" }
]

/** Loads a console page and waits for its content: its heading, its own `ready`, and no loading state left. */
export const openConsolePage = async (page: Page, baseUrl: string, entry: ConsolePage, fixture: Fixture) => {
  await page.goto(`${baseUrl}${entry.path(fixture)}`)
  await page.getByRole("heading", { level: 1, name: entry.heading }).first().waitFor()
  await entry.ready?.(page)
  await page.getByText(/^Loading .+…$/).first().waitFor({ state: "detached" })
}
