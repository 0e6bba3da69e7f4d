import { type RealServer, startRealServer } from "@platform/test-support/real-server"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_DIR, launchChromium, screenshot } from "./support/browser.js"

// One server (with the built console and the broadcast send cycle) and one browser for the file.
let server: RealServer
let browser: Browser
beforeAll(async () => {
  ;[server, browser] = await Promise.all([startRealServer({ DASHBOARD_DIR: CONSOLE_DIR }, { broadcastSendCycle: true }), launchChromium()])
}, 120_000)
afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()])
})

const email = `broadcasts-${Date.now()}@example.com`
const password = "broadcasts-password-1"
/** The sandbox fails this number's message after accepting it (upstream/sandbox/magic.ts). */
const FAILS = "15550131026"

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name })
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true })
const state = (page: Page) => page.getByTestId("broadcast-state").textContent()
const count = (page: Page, s: string) => page.getByTestId(`count-${s}`).textContent()

/** A request of the page's session (setup that is not under test here: the plan, a template). */
const api = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(async ([m, p, b]) => {
    const r = await fetch(p as string, { method: m as string, headers: { "content-type": "application/json" }, ...(b === undefined ? {} : { body: JSON.stringify(b) }) })
    return { status: r.status, body: await r.json().catch(() => null) }
  }, [method, path, body] as const)

/** A template on the channel through the API, approved by the sandbox a moment after (a status callback). */
const approvedTemplate = async (page: Page, channelId: number, name: string) => {
  const created = await api(page, "POST", "/platform/v1/templates", {
    channel_id: channelId, name, language_code: "en_US", category: "marketing",
    body_text: "Hello {{1}}, our spring sale starts today", variables: ["Ana"]
  })
  expect(created.status).toBe(200)
  await expect.poll(async () => (await api(page, "GET", `/platform/v1/templates/${created.body.id}`)).body.meta_status, { timeout: 15_000 }).toBe("approved")
}

/** The draft form: a name and the template (the channel is the only one, chosen already). */
const createDraft = async (page: Page, name: string, defaultName?: string) => {
  await navLink(page, "Broadcasts").click()
  await heading(page, "Broadcasts").waitFor()
  await page.getByRole("link", { name: "New broadcast" }).click()
  await heading(page, "New broadcast").waitFor()
  await page.getByLabel("Name").fill(name)
  await page.getByLabel("Template").selectOption({ label: "spring_sale (en_US)" })
  await expect.poll(() => page.getByLabel("Language").inputValue()).toBe("en_US")
  if (defaultName !== undefined) await page.getByLabel("{{1}}").fill(defaultName)
  await page.getByRole("button", { name: "Create draft" }).click()
  await heading(page, name).waitFor()
  expect(await state(page)).toBe("draft")
  return Number(new URL(page.url()).pathname.split("/").pop())
}

describe("broadcasts in the console, in a real browser", () => {
  // The browser in India's zone (UTC+05:30): the schedule's datetime-local is read there and sent as UTC.
  let page: Page
  let first: number

  it("create a draft, add recipients by paste and by CSV (a bad row shown rejected), send it and watch it complete", async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: "Asia/Kolkata" })
    await page.goto(`${server.baseUrl}/dashboard/signup`)
    await page.getByLabel("Your name").fill("Broadcast Tester")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByLabel("Account name (optional)").fill("Broadcast Co")
    await page.getByRole("button", { name: "Sign up" }).click()
    await heading(page, "Broadcast Co").waitFor()

    // On the free plan broadcasts are off: the page says so with the API's message.
    await navLink(page, "Broadcasts").click()
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Error 403.*not available on the free plan/)

    await navLink(page, "Channels").click()
    await page.getByRole("button", { name: "Connect" }).click()
    const channelRow = page.getByRole("row", { name: /WhatsApp/ })
    await channelRow.getByText("available").waitFor()
    const channelId = Number((await channelRow.getByRole("cell").first().textContent())!.trim())
    expect((await api(page, "POST", "/platform/dashboard/billing/plan", { plan: "lite" })).status).toBe(200)
    await approvedTemplate(page, channelId, "spring_sale")

    await navLink(page, "Broadcasts").click()
    await page.getByText("No broadcasts yet").waitFor()
    await screenshot(page, "broadcasts-empty")
    await page.getByRole("link", { name: "New broadcast" }).click()
    await page.getByLabel("Template").selectOption({ label: "spring_sale (en_US)" })
    await expect.poll(() => page.getByTestId("template-body").textContent()).toBe("Hello {{1}}, our spring sale starts today")
    await screenshot(page, "broadcast-new")
    first = await createDraft(page, "Spring sale", "friend")

    // Pasted: a number with its own variable, one that takes the draft's default, a blank line.
    await page.getByLabel("Numbers (one a line)").fill(`+1 555 000 0001, Ana\n\n15550000002\n${FAILS}, Flo`)
    await page.getByRole("button", { name: "Add pasted numbers" }).click()
    await expect.poll(() => page.getByTestId("load-outcome").textContent()).toContain("From the pasted lines: 3 added, 0 already there (skipped).")
    await expect.poll(() => page.getByTestId("recipient-count").textContent()).toBe("3")

    // A CSV file: a header, a row without a number (the API refuses it, the others still load), a duplicate.
    await page.getByLabel("CSV file", { exact: true }).setInputFiles({
      name: "recipients.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("phone,1\n15550000003,Bo\n,Zed\n\"15550000004\",\"Cy, Jr.\"\n15550000001,Again\n")
    })
    await page.getByRole("button", { name: "Upload CSV" }).click()
    await expect.poll(() => page.getByTestId("load-outcome").textContent()).toContain("From the file: 2 added, 1 already there (skipped), 1 rejected.")
    const rejected = page.getByRole("table", { name: "Rejected rows" }).getByRole("row", { name: /\(empty\)/ })
    expect(await rejected.getByRole("cell").first().textContent()).toBe("3")
    expect(await rejected.textContent()).toMatch(/to: /)
    await expect.poll(() => page.getByTestId("recipient-count").textContent()).toBe("5")
    await expect.poll(() => count(page, "pending")).toBe("5")
    expect(await page.getByTestId("progress-summary").textContent()).toContain("Draft: 5 recipients")
    await screenshot(page, "broadcast-draft")

    // The recipients filter is in the URL.
    await page.getByLabel("Recipient state").selectOption("failed")
    await page.getByRole("button", { name: "Filter" }).click()
    await expect.poll(() => new URL(page.url()).search).toBe("?status=failed")
    await page.getByText("No recipient matches.").waitFor()
    await page.getByLabel("Recipient state").selectOption("")
    await page.getByRole("button", { name: "Filter" }).click()
    await expect.poll(() => page.getByRole("table", { name: "Recipients" }).getByRole("row").count()).toBe(6)

    // Send now asks first; then the page follows the send cycle until the broadcast completes.
    await page.getByRole("button", { name: "Send now" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Send" }).click()
    await expect.poll(() => page.getByTestId("progress-summary").textContent()).toMatch(/^Sending: \d of 5 recipients handled \(updating every 2 seconds\)$/)
    await expect.poll(() => state(page), { timeout: 75_000, interval: 500 }).toBe("completed")
    await expect.poll(() => count(page, "pending")).toBe("0")
    await expect.poll(() => page.getByTestId("progress-summary").textContent()).toMatch(/^Completed: \d of 5 recipients reached/)
    expect(await page.getByText("updating every 2 seconds").count()).toBe(0)
    expect(await page.getByRole("button", { name: "Send now" }).count()).toBe(0)
    expect(await page.getByRole("heading", { name: "Add recipients" }).count()).toBe(0)
    // Status callbacks go on after the send: a refresh shows the failed message and the others delivered or read.
    await expect.poll(async () => {
      await page.getByRole("button", { name: "Refresh" }).click()
      const reached = Number(await count(page, "delivered")) + Number(await count(page, "read"))
      return { failed: await count(page, "failed"), sent: await count(page, "sent"), reached }
    }, { timeout: 15_000 }).toEqual({ failed: "1", sent: "0", reached: 4 })
    const failedRow = page.getByRole("table", { name: "Recipients" }).getByRole("row", { name: new RegExp(FAILS) })
    await failedRow.getByText("failed", { exact: true }).waitFor()
    expect(await failedRow.textContent()).toContain("Message failed to send")
    await screenshot(page, "broadcast-completed")
  }, 150_000)

  it("the list filters by state in the URL; schedule another (in the browser's zone), then cancel it after a confirmation", async () => {
    await navLink(page, "Broadcasts").click()
    const row = page.getByRole("row", { name: /Spring sale/ })
    await expect.poll(() => row.textContent()).toMatch(/spring_sale \(en_US\)completed5/)
    await page.getByLabel("State").selectOption("completed")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => new URL(page.url()).search).toBe("?status=completed")
    await row.waitFor()
    await screenshot(page, "broadcasts")
    await page.getByLabel("State").selectOption("draft")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await page.getByText("No broadcasts match.").waitFor()

    const second = await createDraft(page, "Summer sale")
    // Without recipients the API refuses the schedule, and says why.
    await page.getByLabel("Send at").fill("2030-01-15T10:30")
    await page.getByRole("button", { name: "Schedule" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/422.*recipient/i)
    await page.getByLabel("Numbers (one a line)").fill("15550000009, Dee")
    await page.getByRole("button", { name: "Add pasted numbers" }).click()
    await expect.poll(() => page.getByTestId("recipient-count").textContent()).toBe("1")
    await page.getByRole("button", { name: "Schedule" }).click()
    await expect.poll(() => state(page)).toBe("scheduled")
    // 10:30 in Kolkata (UTC+05:30) is 05:00 UTC, the exact time on hover.
    expect(await page.locator("time[title='2030-01-15T05:00:00.000Z']").count()).toBe(1)
    expect((await api(page, "GET", `/platform/v1/broadcasts/${second}`)).body.scheduled_at).toBe("2030-01-15T05:00:00.000Z")
    await screenshot(page, "broadcast-scheduled")

    // Cancel asks first: dismissing keeps the schedule, confirming returns the broadcast to draft.
    await page.getByRole("button", { name: "Cancel broadcast" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Cancel", exact: true }).click()
    expect(await state(page)).toBe("scheduled")
    await page.getByRole("button", { name: "Cancel broadcast" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Back to draft" }).click()
    await expect.poll(() => state(page)).toBe("draft")
    expect((await api(page, "GET", `/platform/v1/broadcasts/${second}`)).body).toMatchObject({ status: "draft", scheduled_at: null })
    await page.close()
  }, 60_000)

  it("at 390 px a broadcast's page does not scroll sideways", async () => {
    const narrow = await browser.newPage({ viewport: { width: 390, height: 844 } })
    // A deep link asks for a login, then comes back to the broadcast.
    await narrow.goto(`${server.baseUrl}/dashboard/broadcasts/${first}`)
    await expect.poll(() => new URL(narrow.url()).pathname).toBe("/dashboard/login")
    await narrow.getByLabel("Email").fill(email)
    await narrow.getByLabel("Password").fill(password)
    await narrow.getByRole("button", { name: "Log in" }).click()
    await heading(narrow, "Spring sale").waitFor()
    await narrow.getByRole("table", { name: "Recipients" }).waitFor()
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    const main = await narrow.evaluate(() => { const m = document.getElementById("main")!; return { scroll: m.scrollWidth, client: m.clientWidth } })
    expect(main.scroll).toBeLessThanOrEqual(main.client)
    await screenshot(narrow, "broadcast-390px")
    await narrow.close()
  }, 60_000)
})
