import { PLAN_LIMITS as SHARED_PLAN_LIMITS, PlanNames } from "@platform/shared"
import { type RealServer, startRealServer } from "@platform/test-support/real-server"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { PLAN_LIMITS, PLANS } from "../src/api/vocabulary.js"
import { CONSOLE_DIR, launchChromium, screenshot } from "./support/browser.js"

// One server (with the built console, the sandbox upstream) and one browser for the file; one signed-in context for the account.
let server: RealServer
let browser: Browser
let context: BrowserContext
beforeAll(async () => {
  ;[server, browser] = await Promise.all([startRealServer({ DASHBOARD_DIR: CONSOLE_DIR }), launchChromium()])
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
}, 120_000)
afterAll(async () => {
  await context?.close()
  await Promise.all([browser?.close(), server?.close()])
})

const email = `account-${Date.now()}@example.com`
const memberEmail = `member-${Date.now()}@example.com`
const password = "account-password-1"

/** How long a poll waits for the server's answer to show (the default second is short on a busy machine). */
const SLOW = { timeout: 10_000 }

const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name })
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true })

/** A fresh sandbox number connected through the API with the page's cookie; its channel id. */
const connectChannel = (page: Page) => page.evaluate(async () => {
  const phone = String(100000000000000 + Math.floor(Math.random() * 1e12))
  const r = await fetch("/platform/dashboard/channels/connect/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: "sandbox-code", phone_number_id: phone, waba_id: `WABA${phone}` })
  })
  if (r.status !== 201 && r.status !== 200) throw new Error(`connect answered ${r.status}: ${await r.text()}`)
  return ((await r.json()) as { channel_id: number }).channel_id
})

const fetchJson = (page: Page, path: string) => page.evaluate(async (p) => (await fetch(p)).json(), path)

describe("the account, block list, live events and sandbox pages in a real browser", () => {
  it("restates the shared plans and their limits exactly", () => {
    expect(PLANS).toEqual(PlanNames)
    expect(PLAN_LIMITS).toEqual(SHARED_PLAN_LIMITS)
  })

  it("account: the plan's usage, an upgrade, a downgrade refused (409) while channels exceed it and then made, the team", async () => {
    const page = await context.newPage()
    await page.goto(`${server.baseUrl}/dashboard/signup`)
    await page.getByLabel("Your name").fill("Account Owner")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByLabel("Account name (optional)").fill("Account Co")
    await page.getByRole("button", { name: "Sign up" }).click()
    await heading(page, "Account Co").waitFor()

    await navLink(page, "Account").click()
    await heading(page, "Account").waitFor()
    await page.getByRole("meter", { name: "Inbound messages: 0 of 1000" }).waitFor()
    expect(await page.getByTestId("current-plan").textContent()).toBe("free")
    const plans = page.getByRole("table", { name: "Plans and their monthly limits" })
    expect(await plans.getByRole("row", { name: /^lite/ }).textContent()).toContain("10,000")
    await screenshot(page, "account")

    // Up: no confirmation needed; the plan, its limits and the header's badge follow.
    await page.getByRole("button", { name: "Upgrade to lite" }).click()
    await expect.poll(() => page.getByTestId("current-plan").textContent(), SLOW).toBe("lite")
    await page.getByRole("status").getByText("The account is now on the lite plan.").waitFor()
    await expect.poll(() => page.locator(".top .badge").textContent(), SLOW).toBe("lite")
    expect((await fetchJson(page, "/platform/dashboard/billing")).limits.channels).toBe(3)

    // Two channels: the free plan allows one, so the downgrade is refused with the API's 409 message, after the confirmation.
    const first = await connectChannel(page)
    await connectChannel(page)
    await page.reload()
    await page.getByRole("meter", { name: "Channels: 2 of 3" }).waitFor()
    await page.getByRole("button", { name: "Downgrade to free" }).click()
    const dialog = page.getByRole("dialog")
    expect(await dialog.textContent()).toContain("1 channel(s)")
    await dialog.getByRole("button", { name: "Downgrade" }).click()
    await expect.poll(() => page.getByRole("alert").textContent(), SLOW).toMatch(/Error 409.*the free plan allows 1 channel\(s\); disconnect channels first/)
    expect(await page.getByTestId("current-plan").textContent()).toBe("lite")
    expect((await fetchJson(page, "/platform/dashboard/billing")).plan).toBe("lite")
    await screenshot(page, "account-409")

    // Cancel keeps the plan; with one channel disconnected the downgrade goes through.
    await page.getByRole("button", { name: "Downgrade to free" }).click()
    await dialog.getByRole("button", { name: "Cancel" }).click()
    expect((await fetchJson(page, "/platform/dashboard/billing")).plan).toBe("lite")
    expect(await page.evaluate(async (id) => (await fetch(`/platform/dashboard/channels/${id}`, { method: "DELETE" })).status, first)).toBe(204)
    await page.getByRole("button", { name: "Downgrade to free" }).click()
    await dialog.getByRole("button", { name: "Downgrade" }).click()
    await expect.poll(() => page.getByTestId("current-plan").textContent(), SLOW).toBe("free")
    expect(await page.getByRole("alert").count()).toBe(0)
    expect((await fetchJson(page, "/platform/dashboard/billing")).plan).toBe("free")

    // Team: add a new user as developer, see them listed; the same email again is the API's 409.
    const team = page.getByRole("table", { name: "Members" })
    expect(await team.getByRole("row").count()).toBe(2)
    await page.getByLabel("Member email").fill(memberEmail)
    await page.getByLabel("Role", { exact: true }).selectOption("developer")
    await page.getByLabel("Name (new user only)").fill("Dev Member")
    await page.getByLabel("First password (new user only)").fill("member-password-1")
    await page.getByRole("button", { name: "Add member" }).click()
    await page.getByRole("status").getByText(`Added ${memberEmail} as developer.`).waitFor()
    await expect.poll(() => team.getByRole("row", { name: new RegExp(memberEmail) }).textContent(), SLOW).toContain("developer")
    await page.getByLabel("Member email").fill(memberEmail)
    await page.getByRole("button", { name: "Add member" }).click()
    await page.getByRole("alert").filter({ hasText: /Error 409.*this user is already a member/ }).waitFor()
    await screenshot(page, "account-team")
    // The new member can log in to the account.
    const login = await fetch(`${server.baseUrl}/platform/dashboard/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.baseUrl },
      body: JSON.stringify({ email: memberEmail, password: "member-password-1" })
    })
    expect(login.status).toBe(200)
    expect((await login.json()).account.name).toBe("Account Co")

    // The only owner cannot leave (409, shown); removing the member is confirmed, and then they are gone.
    await page.getByRole("button", { name: "Leave the account" }).click()
    await dialog.getByRole("button", { name: "Leave" }).click()
    await page.getByRole("alert").filter({ hasText: /Error 409.*an account keeps at least one owner/ }).waitFor()
    await page.getByRole("button", { name: `Remove ${memberEmail}` }).click()
    await dialog.getByRole("button", { name: "Cancel" }).click()
    expect(await team.getByRole("row", { name: new RegExp(memberEmail) }).count()).toBe(1)
    await page.getByRole("button", { name: `Remove ${memberEmail}` }).click()
    await dialog.getByRole("button", { name: "Remove" }).click()
    await expect.poll(() => team.getByRole("row", { name: new RegExp(memberEmail) }).count(), SLOW).toBe(0)
    const members = (await fetchJson(page, "/platform/dashboard/team")) as Array<{ email: string }>
    expect(members.map((m) => m.email)).toEqual([email])
    await page.close()
  }, 90_000)

  it("a channel's block list shows the numbers blocked in this tab, after a reload too", async () => {
    const page = await context.newPage()
    await page.goto(`${server.baseUrl}/dashboard/channels`)
    const link = page.getByRole("link", { name: /^Channel \d+$/ })
    await link.first().waitFor()
    expect(await link.count()).toBe(1)
    const channelId = (await link.textContent())!.trim()
    await link.click()
    await heading(page, `Channel ${channelId}`).waitFor()
    await page.getByLabel(/^Numbers to block/).fill("15550007777, 15550008888")
    await page.getByRole("button", { name: "Block", exact: true }).click()
    await expect.poll(() => page.getByTestId("block-result").textContent(), SLOW).toContain("Blocked: 15550007777, 15550008888")
    const list = page.getByRole("list", { name: "Blocked from this page" })
    await list.getByText("15550007777").waitFor()
    await page.reload()
    await list.getByText("15550008888").waitFor()
    expect(await list.getByRole("listitem").count()).toBe(2)
    await page.getByRole("button", { name: "Unblock 15550008888" }).click()
    await expect.poll(() => page.getByTestId("block-result").textContent(), SLOW).toContain("Unblocked: 15550008888")
    expect(await list.getByRole("listitem").count()).toBe(1)
    await screenshot(page, "channel-block-list")
    await page.close()
  }, 60_000)

  it("live events filtered by type in the URL, paused and resumed, while the sandbox page injects messages and shows them arrive", async () => {
    const events = await context.newPage()
    await events.goto(`${server.baseUrl}/dashboard/events`)
    await heading(events, "Live events").waitFor()
    await events.getByLabel("message.received").check()
    await events.getByRole("button", { name: "Apply filter" }).click()
    await expect.poll(() => new URL(events.url()).search).toBe(`?event_types=${encodeURIComponent("message.received")}`)
    await expect.poll(() => events.getByTestId("stream-state").textContent(), SLOW).toBe("Stream: Connected")
    await events.getByText("Waiting for message.received…").waitFor()

    const sandbox = await context.newPage()
    await sandbox.goto(`${server.baseUrl}/dashboard/sandbox`)
    await heading(sandbox, "Sandbox").waitFor()
    await expect.poll(() => sandbox.getByTestId("stream-state").textContent(), SLOW).toBe("Stream: Connected")
    // The API's validation message for a bad field shows beside it.
    await sandbox.getByLabel("From (the user's number or id)").fill(" ")
    await sandbox.getByLabel("Text").fill("first message from the sandbox page")
    await sandbox.getByRole("button", { name: "Send inbound message" }).click()
    await expect.poll(() => sandbox.getByRole("alert").textContent(), SLOW).toMatch(/Error 422 in from/)
    await sandbox.getByLabel("From (the user's number or id)").fill("15550004321")
    await sandbox.getByRole("button", { name: "Send inbound message" }).click()
    await expect.poll(() => sandbox.getByTestId("inject-result").textContent(), SLOW).toMatch(/Accepted as wamid\..*Watch it arrive below/)
    // It arrives on the sandbox page (every type: the conversation it opened too) ...
    const arriving = sandbox.getByRole("log", { name: "Arriving events" })
    await arriving.getByRole("listitem").filter({ hasText: "message.received" }).locator(".event-summary", { hasText: "first message from the sandbox page" }).waitFor()
    await arriving.getByRole("listitem").filter({ hasText: "conversation.created" }).waitFor()
    await screenshot(sandbox, "sandbox")

    // ... and on the events page, which shows only message.received, with its envelope on request.
    const log = events.getByRole("log", { name: "Live events" })
    const received = log.getByRole("listitem").filter({ hasText: "first message from the sandbox page" })
    await received.waitFor()
    expect(await received.textContent()).toContain("text from 15550004321")
    await received.getByText(/^Envelope/).click()
    const envelope = JSON.parse((await received.locator("pre").textContent())!)
    expect(envelope).toMatchObject({ event: "message.received", data: { text: "first message from the sandbox page", peer_id: "15550004321" } })
    expect(await received.getByRole("link", { name: /^Channel \d+$/ }).textContent()).toBe(`Channel ${envelope.platform_channel_id}`)
    expect(await received.locator("time").getAttribute("title")).toBe(new Date(envelope.occurred_at).toISOString())
    await expect.poll(() => log.getByRole("listitem").count(), SLOW).toBe(1)
    await screenshot(events, "events")

    // Paused: the next event is held (counted on the button), and shown on resume.
    await events.getByRole("button", { name: "Pause" }).click()
    await sandbox.getByLabel("Text").fill("second message, while paused")
    await sandbox.getByRole("button", { name: "Send inbound message" }).click()
    await arriving.locator(".event-summary", { hasText: "second message, while paused" }).waitFor()
    await events.getByRole("button", { name: "Resume (1 new)" }).waitFor()
    expect(await log.getByRole("listitem").count()).toBe(1)
    await events.getByRole("button", { name: /^Resume/ }).click()
    await log.locator(".event-summary", { hasText: "second message, while paused" }).waitFor()
    expect(await log.getByRole("listitem").first().textContent()).toContain("second message, while paused")
    expect(await log.getByRole("listitem").count()).toBe(2)

    // A reload of the filtered URL keeps the filter.
    await events.reload()
    expect(await events.getByLabel("message.received").isChecked()).toBe(true)
    expect(await events.getByLabel("message.sent").isChecked()).toBe(false)
    await sandbox.close()
    await events.close()
  }, 90_000)

  it("at 390 px the events page fits without sideways scrolling", async () => {
    const page = await context.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${server.baseUrl}/dashboard/sandbox`)
    await expect.poll(() => page.getByTestId("stream-state").textContent(), SLOW).toBe("Stream: Connected")
    await page.getByLabel("Text").fill(`a long line ${"without-breaks-".repeat(12)}`)
    await page.getByRole("button", { name: "Send inbound message" }).click()
    const item = page.getByRole("log", { name: "Arriving events" }).getByRole("listitem").filter({ hasText: "message.received" })
    await item.waitFor()
    await item.getByText(/^Envelope/).click()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await screenshot(page, "sandbox-390px")
    await page.goto(`${server.baseUrl}/dashboard/account`)
    await page.getByRole("table", { name: "Members" }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.close()
  }, 60_000)

  it("with the account's streams all taken the events page shows the API's 429 and reconnects on request once one is free", async () => {
    // Ten open streams (the per-account limit) with the session's cookie, held here (a browser allows six connections to a host).
    const cookie = (await context.cookies(server.baseUrl)).map((c) => `${c.name}=${c.value}`).join("; ")
    const held = await Promise.all(Array.from({ length: 10 }, async () => {
      const controller = new AbortController()
      const response = await fetch(`${server.baseUrl}/platform/v1/events/stream`, { headers: { cookie }, signal: controller.signal })
      // The response is kept: undici cancels the body of a response it garbage-collects, which would close the stream and free its slot.
      return { controller, status: response.status, response }
    }))
    onTestFinished(() => held.forEach((h) => h.controller.abort()))
    expect(held.map((h) => h.status)).toEqual(Array(10).fill(200))
    // One more is the API's 429.
    const eleventh = await fetch(`${server.baseUrl}/platform/v1/events/stream`, { headers: { cookie } })
    expect(eleventh.status).toBe(429)
    const events = await context.newPage()
    await events.goto(`${server.baseUrl}/dashboard/events`)
    await expect.poll(() => events.getByTestId("stream-state").textContent(), SLOW).toBe("Stream: Disconnected")
    await events.getByRole("alert").filter({ hasText: /Error 429.*rate limit exceeded/ }).waitFor()
    await screenshot(events, "events-429")
    // One stream closes; Reconnect opens the page's.
    held.pop()!.controller.abort()
    await expect.poll(async () => {
      if (await events.getByRole("button", { name: "Reconnect" }).isVisible()) await events.getByRole("button", { name: "Reconnect" }).click()
      return events.getByTestId("stream-state").textContent()
    }, { timeout: 15_000 }).toBe("Stream: Connected")
    expect(await events.getByRole("alert").count()).toBe(0)
    await events.close()
  }, 60_000)

  it("logging out in one tab ends the live stream in another, and the pages lead to the login", async () => {
    const events = await context.newPage()
    await events.goto(`${server.baseUrl}/dashboard/events`)
    await expect.poll(() => events.getByTestId("stream-state").textContent(), SLOW).toBe("Stream: Connected")
    const other = await context.newPage()
    await other.goto(`${server.baseUrl}/dashboard/account`)
    await heading(other, "Account").waitFor()
    await other.getByRole("button", { name: "Log out" }).click()
    await heading(other, "Log in").waitFor()
    // The stream ends once the session has (checked every 5 s); the reconnect is 401 and the page asks for a login.
    await expect.poll(() => new URL(events.url()).pathname, { timeout: 30_000 }).toBe("/dashboard/login")
    for (const path of ["/account", "/events", "/sandbox"]) {
      await other.goto(`${server.baseUrl}/dashboard${path}`)
      await heading(other, "Log in").waitFor()
      expect(new URL(other.url()).search).toBe(`?next=${encodeURIComponent(path)}`)
    }
    expect(await other.evaluate(async () => (await fetch("/platform/v1/events/stream")).status)).toBe(401)
    await other.close()
    await events.close()
  }, 60_000)
})
