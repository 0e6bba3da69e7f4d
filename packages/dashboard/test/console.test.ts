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
    await page.close()
  }, 60_000)
})
