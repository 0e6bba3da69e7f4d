import { type RealServer, startRealServer } from "@platform/test-support/real-server"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_DIR, launchChromium, screenshot } from "./support/browser.js"

// One server (with the built console) and one browser for the file.
let server: RealServer
let browser: Browser
beforeAll(async () => {
  ;[server, browser] = await Promise.all([startRealServer({ DASHBOARD_DIR: CONSOLE_DIR }), launchChromium()])
}, 120_000)
afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()])
})

const email = `data-pages-${Date.now()}@example.com`
const password = "data-pages-password-1"
const peer = "15550009876"
const sentText = "hello from the data pages test"
const replyText = "and hello back from the peer"

const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name })
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true })
const search = (page: Page) => new URL(page.url()).search
/** Rows of the page's table body (the header row left out). */
const bodyRows = (page: Page) => page.locator("table tbody tr")
/** Clicks Refresh until `check` holds (the sandbox's status callbacks arrive after the send answers). */
const refreshUntil = (page: Page, check: () => Promise<boolean>) =>
  expect.poll(async () => {
    if (await check()) return true
    await page.getByRole("button", { name: "Refresh" }).click()
    return check()
  }, { timeout: 20_000 }).toBe(true)
/** Nothing of the page scrolls sideways: the document and the main column are no wider than the viewport. */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const main = document.getElementById("main")!
    return { document: document.documentElement.scrollWidth, main: main.scrollWidth - main.clientWidth }
  })

describe("messages, conversations and contacts in a real browser", () => {
  it("a message sent with a key and the peer's reply show on the messages page, the conversation and its thread, and the contact; filters survive a reload", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(`${server.baseUrl}/dashboard/signup`)
    await page.getByLabel("Your name").fill("Data Tester")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByLabel("Account name (optional)").fill("Data Co")
    await page.getByRole("button", { name: "Sign up" }).click()
    await heading(page, "Data Co").waitFor()

    // The lists are empty before anything is sent, and say so.
    await navLink(page, "Messages").click()
    await heading(page, "Messages").waitFor()
    await page.getByText("No messages match").waitFor()

    // A sandbox channel and a key, both through the console.
    await navLink(page, "Channels").click()
    await page.getByText("Sandbox mode").waitFor()
    await page.getByRole("button", { name: "Connect" }).click()
    const channelRow = page.getByRole("row", { name: /WhatsApp/ })
    await channelRow.getByText("available").waitFor()
    const channelId = Number((await channelRow.getByRole("cell").first().textContent())!.trim())
    await navLink(page, "API keys").click()
    await page.getByLabel("Name").fill("data key")
    await page.getByRole("button", { name: "Create key" }).click()
    const key = (await page.getByTestId("new-key").textContent())!
    await page.getByRole("button", { name: "I have copied it" }).click()

    // A send through the v1 API with the key, then the peer's reply injected through the sandbox.
    const sent = await fetch(`${server.baseUrl}/platform/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ channel_id: channelId, to: peer, type: "text", text: sentText })
    })
    expect(sent.status, await sent.clone().text()).toBe(200)
    const injected = await page.evaluate(async ({ id, from, text }) => {
      const r = await fetch("/platform/dashboard/sandbox/inbound", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channel_id: id, from, text, profile_name: "Peer Person" })
      })
      return r.status
    }, { id: channelId, from: peer, text: replyText })
    expect(injected).toBe(202)

    // Messages: both, newest first; the sent one's status goes on to read as the sandbox's callbacks arrive.
    await navLink(page, "Messages").click()
    await heading(page, "Messages").waitFor()
    const outboundRow = page.getByRole("row", { name: new RegExp(sentText) })
    const inboundRow = page.getByRole("row", { name: new RegExp(replyText) })
    await refreshUntil(page, async () => (await inboundRow.count()) === 1 && /read/.test((await outboundRow.textContent()) ?? ""))
    expect(await bodyRows(page).count()).toBe(2)
    expect(await bodyRows(page).first().textContent()).toContain(replyText)
    expect(await outboundRow.textContent()).toMatch(/outbound/)
    expect(await inboundRow.textContent()).toMatch(/inbound/)
    // The times are the browser's, with the exact ISO time on hover.
    expect(await outboundRow.locator("time").first().getAttribute("title")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(await outboundRow.locator("time").count()).toBe(2)
    await screenshot(page, "messages")

    // Filters go to the URL and survive a reload.
    await page.getByLabel("Direction", { exact: true }).selectOption("inbound")
    await page.getByLabel("Type", { exact: true }).selectOption("text")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => search(page)).toBe("?direction=inbound&type=text")
    await expect.poll(() => bodyRows(page).count()).toBe(1)
    await page.reload()
    await inboundRow.waitFor()
    expect(await page.getByLabel("Direction", { exact: true }).inputValue()).toBe("inbound")
    expect(await page.getByLabel("Type", { exact: true }).inputValue()).toBe("text")
    expect(await bodyRows(page).count()).toBe(1)
    await screenshot(page, "messages-filtered")
    // A filter the API refuses shows its message, and the field it names is marked.
    await page.getByLabel("Channel id", { exact: true }).fill("abc")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Error 422.*channel_id/)
    expect(await page.getByLabel("Channel id", { exact: true }).getAttribute("aria-invalid")).toBe("true")
    // A date filter is picked in the browser's zone and kept in the URL as the ISO time the API takes.
    await page.getByLabel("Channel id", { exact: true }).fill("")
    await page.getByLabel("Since", { exact: true }).fill("2099-01-01T00:00")
    await page.getByRole("button", { name: "Apply filters" }).click()
    const since = await page.evaluate(() => new Date("2099-01-01T00:00").toISOString())
    await expect.poll(() => new URL(page.url()).searchParams.get("since")).toBe(since)
    await page.getByText("No messages match").waitFor()
    await page.reload()
    await page.getByText("No messages match").waitFor()
    expect(await page.getByLabel("Since", { exact: true }).inputValue()).toBe("2099-01-01T00:00")
    await page.getByRole("link", { name: "Clear filters" }).click()
    await expect.poll(() => search(page)).toBe("")
    await expect.poll(() => bodyRows(page).count()).toBe(2)

    // Conversations: the one with the peer, filtered by status and peer in the URL.
    await navLink(page, "Conversations").click()
    await heading(page, "Conversations").waitFor()
    await page.getByLabel("Status", { exact: true }).selectOption("active")
    await page.getByLabel("Peer (phone or user id)").fill(peer)
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => search(page)).toBe(`?status=active&peer_id=${peer}`)
    const conversationLink = page.getByRole("link", { name: new RegExp(`^Conversation \\d+ with ${peer}$`) })
    await conversationLink.waitFor()
    const conversationRow = page.getByRole("row", { name: new RegExp(peer) })
    expect(await conversationRow.textContent()).toContain(replyText)
    expect(await conversationRow.textContent()).toContain("2 (1 / 1)")
    await page.reload()
    await conversationLink.waitFor()
    expect(await page.getByLabel("Peer (phone or user id)").inputValue()).toBe(peer)
    await screenshot(page, "conversations")
    await page.getByLabel("Status", { exact: true }).selectOption("ended")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await page.getByText("No conversations match").waitFor()
    await page.goBack()
    await conversationLink.click()

    // The thread: oldest first, each message with its direction, type, status and times.
    await heading(page, /^Conversation \d+$/).waitFor()
    const bubbles = page.getByRole("list", { name: "Messages, oldest first" }).getByRole("listitem")
    await expect.poll(() => bubbles.count()).toBe(2)
    const [first, second] = [await bubbles.nth(0).textContent(), await bubbles.nth(1).textContent()]
    expect(first).toContain(sentText)
    expect(first).toMatch(/outbound/)
    expect(first).toMatch(/text/)
    expect(first).toMatch(/read/)
    expect(second).toContain(replyText)
    expect(second).toMatch(/inbound/)
    expect(await bubbles.nth(0).locator("time").count()).toBe(2)
    const facts = (await page.locator("dl.facts").textContent())!
    expect(facts).toContain(peer)
    expect(facts).toContain("Peer Person")
    expect(facts).toMatch(/1 in, 1 out/)
    await screenshot(page, "conversation-thread")

    // Contacts: found by the start of the name; from there to its messages and conversations.
    await navLink(page, "Contacts").click()
    await heading(page, "Contacts").waitFor()
    await page.getByLabel("Name, username or phone starts with").fill("peer")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => search(page)).toBe("?q=peer")
    const contactRow = page.getByRole("row", { name: /Peer Person/ })
    await contactRow.waitFor()
    expect(await contactRow.textContent()).toContain(peer)
    await page.reload()
    await contactRow.waitFor()
    expect(await page.getByLabel("Name, username or phone starts with").inputValue()).toBe("peer")
    await screenshot(page, "contacts")
    await page.getByLabel("Name, username or phone starts with").fill("nobody")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await page.getByText("No contacts match").waitFor()
    await page.goBack()
    await page.getByRole("link", { name: "Conversations of Peer Person" }).click()
    await heading(page, "Conversations").waitFor()
    await conversationLink.waitFor()
    expect(await bodyRows(page).count()).toBe(1)
    await page.goBack()
    await page.getByRole("link", { name: "Messages of Peer Person" }).click()
    await heading(page, "Messages").waitFor()
    expect(search(page)).toMatch(/^\?contact_id=\d+$/)
    await expect.poll(() => bodyRows(page).count()).toBe(2)
    await page.close()
  }, 120_000)

  it("at 390 px the messages list and a conversation's thread do not scroll sideways", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
    await page.goto(`${server.baseUrl}/dashboard/login?next=${encodeURIComponent("/dashboard/messages")}`)
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Log in" }).click()
    await heading(page, "Messages").waitFor()
    await page.getByRole("row", { name: new RegExp(sentText) }).waitFor()
    expect(await sideways(page)).toEqual({ document: 390, main: 0 })
    // The filters are usable from the keyboard at this width.
    await page.getByLabel("Direction", { exact: true }).focus()
    await page.getByLabel("Direction", { exact: true }).selectOption("outbound")
    await page.keyboard.press("Tab")
    await page.getByRole("button", { name: "Apply filters" }).focus()
    await page.keyboard.press("Enter")
    await expect.poll(() => search(page)).toBe("?direction=outbound")
    await expect.poll(() => bodyRows(page).count()).toBe(1)
    await screenshot(page, "messages-390px")
    await page.getByRole("link", { name: /^Conversation \d+$/ }).click()
    await page.getByRole("list", { name: "Messages, oldest first" }).waitFor()
    expect(await sideways(page)).toEqual({ document: 390, main: 0 })
    await screenshot(page, "conversation-390px")
    await page.close()
  }, 60_000)
})
