import { hasEvent, type RealServer, startRealServer, startReceiver, type Receiver } from "@platform/test-support/real-server"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_DIR, launchChromium, screenshot } from "./support/browser.js"

// One server (with the built console), one loopback webhook receiver and one browser for the file.
let server: RealServer
let receiver: Receiver
let browser: Browser
beforeAll(async () => {
  ;[server, receiver, browser] = await Promise.all([startRealServer({ DASHBOARD_DIR: CONSOLE_DIR }), startReceiver(), launchChromium()])
}, 120_000)
afterAll(async () => {
  await Promise.all([browser?.close(), server?.close(), receiver?.close()])
})

const email = `console-${Date.now()}@example.com`
const password = "console-password-1"

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name })

/** A link of the console's navigation (pages have links of the same names). */
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true })

const logIn = async (page: Page) => {
  await page.goto(`${server.baseUrl}/dashboard`)
  await page.getByLabel("Email").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Log in" }).click()
}

describe("the console in a real browser", () => {
  it("sign up, create a key (shown once), connect a sandbox channel, subscribe, see the delivery, redeliver, log out", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    // `/` leads to the console, which asks a visitor to log in.
    await page.goto(`${server.baseUrl}/`)
    await expect.poll(() => new URL(page.url()).pathname).toBe("/dashboard/login")
    await screenshot(page, "login")
    await page.getByRole("link", { name: "Create an account" }).click()
    await page.getByLabel("Your name").fill("Console Tester")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill("short")
    await page.getByRole("button", { name: "Sign up" }).click()
    // The browser's own check refuses a short password before the API is asked; the API's message shows for what it refuses.
    await page.getByLabel("Password").fill(password)
    await page.getByLabel("Account name (optional)").fill("x".repeat(201))
    await page.getByRole("button", { name: "Sign up" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/account_name.*200 characters/)
    await page.getByLabel("Account name (optional)").fill("Console Co")
    await page.getByRole("button", { name: "Sign up" }).click()
    await heading(page, "Console Co").waitFor()
    expect(new URL(page.url()).pathname).toBe("/dashboard")
    await page.getByText("Inbound messages").waitFor()
    await screenshot(page, "overview")

    // API keys: created with a rate limit, the plaintext shown once, and it works.
    await navLink(page, "API keys").click()
    await heading(page, "API keys").waitFor()
    await page.getByText("No API keys yet").waitFor()
    await page.getByLabel("Name").fill("ci key")
    await page.getByLabel("send:broadcasts").uncheck()
    await page.getByLabel("Rate limit (requests per minute)").fill("120")
    await page.getByRole("button", { name: "Create key" }).click()
    const key = (await page.getByTestId("new-key").textContent())!
    expect(key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/)
    await page.getByRole("button", { name: "Copy key" }).waitFor()
    const row = page.getByRole("row", { name: /ci key/ })
    await expect.poll(() => row.textContent()).toContain("120/min")
    expect(await row.textContent()).toContain(key.slice(0, 12))
    expect(await row.textContent()).not.toContain("send:broadcasts")
    await screenshot(page, "api-keys")
    await page.getByRole("button", { name: "I have copied it" }).click()
    expect(await page.content()).not.toContain(key)
    const withKey = await fetch(`${server.baseUrl}/platform/v1/channels`, { headers: { "x-api-key": key } })
    expect(withKey.status).toBe(200)
    expect(await withKey.json()).toEqual([])

    // Channels: in sandbox mode the connect form is pre-filled; one click connects a number.
    await navLink(page, "Channels").click()
    await page.getByText("Sandbox mode").waitFor()
    await page.getByRole("button", { name: "Connect" }).click()
    const channelRow = page.getByRole("row", { name: /WhatsApp/ })
    await channelRow.getByText("available").waitFor()
    const channelId = Number((await channelRow.getByRole("cell").first().textContent())!.trim())
    expect(channelId).toBeGreaterThan(0)
    await screenshot(page, "channels")

    // Webhooks: a subscription to the loopback receiver, its secret shown once.
    await navLink(page, "Webhooks").click()
    await page.getByText("No subscriptions yet").waitFor()
    await page.getByLabel("Target URL").fill(receiver.url)
    await page.getByLabel("message.received").check()
    await page.getByRole("button", { name: "Create subscription" }).click()
    await expect.poll(() => page.locator("code.secret").textContent()).toMatch(/^whsec_/)
    await page.getByRole("row", { name: receiver.url }).waitFor()
    await screenshot(page, "webhooks")

    // A sandbox inbound message on the new channel reaches the receiver ...
    const injected = await page.evaluate(async (id) => {
      const r = await fetch("/platform/dashboard/sandbox/inbound", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channel_id: id, from: "15550001234", text: "hello from the console test" })
      })
      return r.status
    }, channelId)
    expect(injected).toBe(202)
    await receiver.next(hasEvent("message.received", (e) => e.data?.message?.text?.body === "hello from the console test" || JSON.stringify(e).includes("hello from the console test")))

    // ... and its delivery is in the log, filtered by the URL's query string.
    await navLink(page, "Deliveries").click()
    await page.getByLabel("Status", { exact: true }).selectOption("delivered")
    await page.getByLabel("Event type", { exact: true }).selectOption("message.received")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => new URL(page.url()).search).toBe("?status=delivered&event_type=message.received")
    const deliveryLink = page.getByRole("link", { name: /^Delivery \d+$/ })
    await expect.poll(async () => {
      await page.getByRole("button", { name: "Refresh" }).click()
      return deliveryLink.count()
    }, { timeout: 15_000 }).toBe(1)
    await screenshot(page, "deliveries")
    // The filtered log is bookmarkable: loading its URL afresh shows the same filters.
    await page.reload()
    await expect.poll(() => page.getByLabel("Status", { exact: true }).inputValue()).toBe("delivered")
    await deliveryLink.click()
    await page.getByTestId("envelope").waitFor()
    expect(await page.getByTestId("envelope").textContent()).toContain("hello from the console test")
    expect(await page.locator("dl.facts").textContent()).toMatch(/Response status200/)
    const created = page.locator("dl.facts time").first()
    expect(await created.getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    await screenshot(page, "delivery")
    const firstId = new URL(page.url()).pathname.split("/").pop()
    await page.getByRole("button", { name: "Redeliver" }).click()
    await expect.poll(() => new URL(page.url()).pathname).not.toBe(`/dashboard/webhooks/deliveries/${firstId}`)
    await heading(page, /^Delivery \d+$/ as unknown as string).waitFor()
    await expect.poll(() => receiver.received.filter(hasEvent("message.received")).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2)

    // Disconnecting asks first; Cancel keeps the channel.
    await navLink(page, "Channels").click()
    await page.getByRole("button", { name: `Disconnect channel ${channelId}` }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click()
    await page.getByRole("row", { name: /WhatsApp/ }).waitFor()

    // Log out: the pages are closed, a deep link comes back to the login.
    await page.getByRole("button", { name: "Log out" }).click()
    await heading(page, "Log in").waitFor()
    await page.goto(`${server.baseUrl}/dashboard/api-keys`)
    await heading(page, "Log in").waitFor()
    expect(new URL(page.url()).search).toBe(`?next=${encodeURIComponent("/api-keys")}`)
    const me = await page.evaluate(async () => (await fetch("/platform/dashboard/me")).status)
    expect(me).toBe(401)
    await page.close()
  }, 120_000)

  // Uses the account, channel and subscription the first test made.
  it("a subscription's page: edit (kept after reload), pause and resume, rotate (new secret once), test event in the log, delete", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await logIn(page)
    await heading(page, "Console Co").waitFor()
    await navLink(page, "Webhooks").click()
    const subLink = page.getByRole("link", { name: /^Subscription \d+$/ })
    const subId = (await subLink.textContent())!.trim()
    await subLink.click()
    await heading(page, `Subscription ${subId}`).waitFor()
    const held = () => page.evaluate(async (id) => {
      const r = await fetch(`/platform/v1/webhooks/subscriptions/${id}`)
      return r.status === 200 ? await r.json() : r.status
    }, subId)

    // Edit: the server holds the change, and the page shows it after a reload.
    await page.getByLabel("Description").fill("orders receiver")
    await page.getByLabel(/^Inactivity/).fill("30")
    await page.getByLabel(/^Custom headers/).fill("X-Team: console")
    await page.getByRole("button", { name: "Save changes" }).click()
    await expect.poll(async () => (await held()).description).toBe("orders receiver")
    expect(await held()).toMatchObject({ inactivity_minutes: 30, custom_headers: { "X-Team": "console" }, event_types: ["message.received"] })
    await page.reload()
    await expect.poll(() => page.locator("dl.facts").textContent()).toContain("orders receiver")
    expect(await page.getByLabel(/^Inactivity/).inputValue()).toBe("30")

    // A bad value shows the API's message and field.
    await page.getByLabel(/^Buffer batch size/).evaluate((el: HTMLInputElement) => { el.removeAttribute("max"); el.value = "500" })
    await page.getByRole("button", { name: "Save changes" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toMatch(/buffer_max_batch/)
    await page.getByLabel(/^Buffer batch size/).fill("")
    await page.getByRole("button", { name: "Save changes" }).click()
    await expect.poll(() => page.getByRole("alert").count()).toBe(0)
    expect((await held()).buffer_max_batch).toBeNull()

    // Pause, then resume.
    await page.getByRole("button", { name: "Pause" }).click()
    await expect.poll(() => page.getByTestId("sub-state").textContent()).toContain("inactive")
    expect((await held()).is_active).toBe(false)
    await page.getByRole("button", { name: "Resume" }).click()
    await expect.poll(() => page.getByTestId("sub-state").textContent()).toContain("active")
    expect(await held()).toMatchObject({ is_active: true, is_paused: false })

    // Rotate: confirmed, the new secret shown once.
    await page.getByRole("button", { name: "Rotate secret" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Rotate" }).click()
    const secret = (await page.getByTestId("secret-once").textContent())!
    expect(secret).toMatch(/^whsec_/)
    await screenshot(page, "subscription")
    await page.getByRole("button", { name: "I have copied it" }).click()
    expect(await page.content()).not.toContain(secret)

    // A test event: the page shows the delivery the route answered, the receiver gets it, the log lists it.
    await page.getByRole("button", { name: "Send test event" }).click()
    const result = page.getByTestId("test-result")
    await expect.poll(() => result.textContent()).toMatch(/delivery \d+.*message\.received/)
    const testDelivery = (await result.getByRole("link", { name: /^delivery \d+$/ }).textContent())!.split(" ")[1]
    // The receiver gets the sample, with the custom header the edit set.
    const sample = await receiver.next(hasEvent("message.received", (e) => e.data?._test === true))
    expect(sample.headers["x-team"]).toBe("console")
    await result.getByRole("link", { name: "See it in the deliveries log" }).click()
    await expect.poll(() => new URL(page.url()).search).toBe(`?subscription_id=${subId}`)
    await page.getByRole("link", { name: `Delivery ${testDelivery}` }).waitFor()

    // Delete, confirmed: back to the list, and the server no longer has it.
    await page.goBack()
    await heading(page, `Subscription ${subId}`).waitFor()
    await page.getByRole("button", { name: "Delete subscription" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click()
    await heading(page, "Webhooks").waitFor()
    await page.getByText("No subscriptions yet").waitFor()
    expect(await held()).toBe(404)
    await page.close()
  }, 60_000)

  it("a channel's page: block and unblock a number, inbound off (confirmed) and on, raw forward with its secret once, the profile", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await logIn(page)
    await heading(page, "Console Co").waitFor()
    await navLink(page, "Channels").click()
    const link = page.getByRole("link", { name: /^Channel \d+$/ })
    const channelId = (await link.textContent())!.trim()
    await link.click()
    await heading(page, `Channel ${channelId}`).waitFor()
    const held = () => page.evaluate(async (id) =>
      ((await (await fetch("/platform/dashboard/channels")).json()) as Array<{ channel_id: number }>).find((c) => String(c.channel_id) === id) as any, channelId)

    await page.getByLabel(/^Numbers to block/).fill("15550009999")
    await page.getByRole("button", { name: "Block", exact: true }).click()
    await expect.poll(() => page.getByTestId("block-result").textContent()).toContain("Blocked: 15550009999")
    await page.getByRole("list", { name: "Blocked from this page" }).getByText("15550009999").waitFor()
    await page.getByRole("button", { name: "Unblock 15550009999" }).click()
    await expect.poll(() => page.getByTestId("block-result").textContent()).toContain("Unblocked: 15550009999")
    await page.getByText("No number blocked from this page yet").waitFor()

    await page.getByRole("button", { name: "Turn inbound off" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Turn off" }).click()
    await expect.poll(() => page.getByTestId("inbound-state").textContent()).toBe("off")
    expect((await held()).inbound_enabled).toBe(false)
    await page.getByRole("button", { name: "Turn inbound on" }).click()
    await expect.poll(() => page.getByTestId("inbound-state").textContent()).toBe("on")
    expect((await held()).inbound_enabled).toBe(true)

    await page.getByLabel("Raw-forward URL").fill(receiver.url)
    await page.getByRole("button", { name: "Save URL" }).click()
    const secret = (await page.getByTestId("secret-once").textContent())!
    expect(secret.length).toBeGreaterThan(16)
    expect(await held()).toMatchObject({ webhook_url: receiver.url, has_webhook_secret: true })
    await screenshot(page, "channel")
    await page.getByRole("button", { name: "I have copied it" }).click()
    await page.reload()
    await page.getByText("(secret set)").waitFor()
    expect(await page.content()).not.toContain(secret)

    await page.getByLabel("About").fill("Open 9 to 5")
    await page.getByRole("button", { name: "Save profile" }).click()
    await expect.poll(() => page.evaluate(async (id) => (await (await fetch(`/platform/v1/channels/${id}/profile`)).json()).about, channelId)).toBe("Open 9 to 5")
    await page.reload()
    await expect.poll(() => page.getByLabel("About").inputValue()).toBe("Open 9 to 5")
    await page.close()
  }, 60_000)

  it("at 390 px the nav is behind a Menu button that opens it, and the page does not scroll sideways", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
    await logIn(page)
    await heading(page, "Console Co").waitFor()
    const nav = page.getByRole("navigation", { name: "Console" })
    expect(await nav.isVisible()).toBe(false)
    const menu = page.getByRole("button", { name: "Menu" })
    expect(await menu.getAttribute("aria-expanded")).toBe("false")
    await menu.focus()
    await page.keyboard.press("Enter")
    expect(await menu.getAttribute("aria-expanded")).toBe("true")
    await nav.getByRole("link", { name: "Channels" }).click()
    await heading(page, "Channels").waitFor()
    expect(await nav.isVisible()).toBe(false)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await screenshot(page, "channels-390px")
    // A channel's page (its forms and raw-forward URL) fits too.
    await page.getByRole("link", { name: /^Channel \d+$/ }).click()
    await page.getByRole("heading", { name: "Business profile" }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.close()
  }, 60_000)
})
