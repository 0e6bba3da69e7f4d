import { type RealServer, type Receiver, startRealServer, startReceiver } from "@platform/test-support/real-server"
import { request } from "node:http"
import type { Browser, BrowserContextOptions, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cursorOf } from "../src/api/cursor.js"
import { axeViolations, describeViolations, expectNoSeriousViolations, FAILING_IMPACTS } from "./support/accessibility.js"
import { CONSOLE_DIR, launchChromium, screenshot } from "./support/browser.js"
import { prepareConsoleAccount } from "./support/console-fixture.js"
import { CONSOLE_PAGES, type ConsolePage, type Fixture, openConsolePage } from "./support/console-pages.js"

// One server (with the built console), a loopback webhook receiver, one browser, and an account with
// five subscriptions and a delivery for each (more than a page when the URL asks for two a page).
let server: RealServer
let receiver: Receiver
let browser: Browser
let fixture: Fixture
beforeAll(async () => {
  ;[server, receiver, browser] = await Promise.all([startRealServer({ DASHBOARD_DIR: CONSOLE_DIR }), startReceiver(), launchChromium()])
  fixture = await prepareConsoleAccount(server, receiver, 5)
}, 120_000)
afterAll(async () => {
  await Promise.all([browser?.close(), server?.close(), receiver?.close()])
})

/** A page in a fresh browser context, with the account's session unless `signedOut`. */
const open = async (signedOut: boolean, options: BrowserContextOptions = {}): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options })
  if (!signedOut) {
    const [name, value] = server.cookie.split("=", 2) as [string, string]
    await context.addCookies([{ name, value, url: server.baseUrl }])
  }
  return context.newPage()
}
const close = (page: Page) => page.context().close()

/** The ids a list page shows, in order (their links are named "Subscription 12", "Delivery 40"). */
const idsShown = (page: Page, what: "Subscription" | "Delivery") =>
  page.getByRole("link", { name: new RegExp(`^${what} \\d+$`) }).allTextContents().then((t) => t.map(Number))

const pagerLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name, exact: true })

/** Whether the document scrolls sideways (wider content than the viewport). */
const overflow = (page: Page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))

describe("the console's quality on every page", () => {
  it("at 1280 px every page has no serious or critical accessibility violation (axe-core); a screenshot of each is kept", async () => {
    const failures: Array<string> = []
    for (const entry of CONSOLE_PAGES) {
      const page = await open(entry.signedOut === true)
      await openConsolePage(page, server.baseUrl, entry, fixture)
      await screenshot(page, `quality-${entry.name}`)
      const serious = (await axeViolations(page)).filter((v) => FAILING_IMPACTS.includes(v.impact ?? "minor"))
      if (serious.length > 0) failures.push(`${entry.name} (${entry.path(fixture)}):\n${describeViolations(serious)}`)
      await close(page)
    }
    expect(failures.join("\n")).toBe("")
  }, 180_000)

  it("at 390 px every page fits the width (nothing scrolls sideways) and the navigation opens from the Menu button", async () => {
    const problems: Array<string> = []
    const check = async (entry: ConsolePage) => {
      const page = await open(entry.signedOut === true, { viewport: { width: 390, height: 844 } })
      await openConsolePage(page, server.baseUrl, entry, fixture)
      const serious = (await axeViolations(page)).filter((v) => FAILING_IMPACTS.includes(v.impact ?? "minor"))
      if (serious.length > 0) problems.push(`${entry.name} at 390 px:\n${describeViolations(serious)}`)
      const { scroll, client } = await overflow(page)
      if (scroll > client) problems.push(`${entry.name}: the document is ${scroll} px wide in a ${client} px viewport`)
      if (entry.signedOut !== true) {
        const nav = page.getByRole("navigation", { name: "Console" })
        const menu = page.getByRole("button", { name: "Menu" })
        if (await nav.isVisible()) problems.push(`${entry.name}: the navigation shows before the Menu button opens it`)
        await menu.focus()
        await page.keyboard.press("Enter")
        if ((await menu.getAttribute("aria-expanded")) !== "true") problems.push(`${entry.name}: the Menu button did not open`)
        if (!(await nav.getByRole("link", { name: "Deliveries" }).isVisible())) problems.push(`${entry.name}: the navigation's links are not shown after Menu`)
        const opened = await overflow(page)
        if (opened.scroll > opened.client) problems.push(`${entry.name}: with the menu open the document is ${opened.scroll} px wide`)
      }
      await screenshot(page, `quality-${entry.name}-390px`)
      await close(page)
    }
    for (const entry of CONSOLE_PAGES) await check(entry)
    expect(problems).toEqual([])
  }, 180_000)

  it("the accessibility check fails on a serious violation and names its rule, element and help", async () => {
    const page = await open(true)
    await openConsolePage(page, server.baseUrl, CONSOLE_PAGES.find((p) => p.name === "login")!, fixture)
    await expectNoSeriousViolations(page, "login")
    // An input with no label and text too faint to read: both serious or worse.
    await page.evaluate(() => {
      const form = document.querySelector("form")!
      form.insertAdjacentHTML("beforeend", `<input id="unlabelled" type="text"><p id="faint" style="color:#ccc;background:#fff">faint</p>`)
    })
    const failure = await expectNoSeriousViolations(page, "login with a broken field").then(() => undefined, (e: Error) => e.message)
    expect(failure).toContain("login with a broken field: 2 serious or critical accessibility violation(s)")
    expect(failure).toMatch(/- label \(critical\): Form elements must have labels .*\n\s+at #unlabelled:/)
    expect(failure).toMatch(/- color-contrast \(serious\): .*\n\s+at #faint:/)
    await close(page)
  }, 60_000)

  it("by keyboard: log in (Tab to the button, Enter), create a key, open a confirmation that holds the focus and closes on Escape", async () => {
    const page = await open(true)
    await page.goto(`${server.baseUrl}/dashboard/login`)
    await page.getByLabel("Email").focus()
    await page.keyboard.type(server.email)
    await page.keyboard.press("Tab")
    await page.keyboard.type(server.password)
    await page.keyboard.press("Tab")
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null
      return { text: el?.textContent?.trim() ?? "", label: el?.getAttribute("aria-label") ?? "", tag: el?.tagName ?? "", inDialog: el?.closest("dialog[open]") !== null, outline: el ? getComputedStyle(el).outlineStyle : "" }
    })
    expect(await focused()).toMatchObject({ tag: "BUTTON", text: "Log in", outline: "solid" })
    await page.keyboard.press("Enter")
    await page.getByText("Inbound messages").waitFor()
    expect(new URL(page.url()).pathname).toBe("/dashboard")

    // The create-key form: Tab from its first field reaches "Create key"; Enter creates it.
    await page.goto(`${server.baseUrl}/dashboard/api-keys`)
    await page.getByRole("table").waitFor()
    await page.getByLabel("Name").focus()
    await page.keyboard.type("keyboard key")
    const tabs: Array<string> = []
    for (let i = 0; i < 40 && (await focused()).text !== "Create key"; i++) {
      await page.keyboard.press("Tab")
      tabs.push((await focused()).text)
    }
    expect(await focused(), `Tab went through: ${tabs.join(" | ")}`).toMatchObject({ tag: "BUTTON", text: "Create key", outline: "solid" })
    await page.keyboard.press("Enter")
    await page.getByTestId("new-key").waitFor()
    await page.getByRole("button", { name: "I have copied it" }).click()

    // A destructive action asks first: the dialog takes the focus (on Cancel), Tab stays inside it, Escape cancels.
    const remove = page.getByRole("button", { name: "Delete key keyboard key" })
    await remove.focus()
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog", { name: "Delete “keyboard key”?" })
    await dialog.waitFor()
    expect(await focused()).toMatchObject({ text: "Cancel", inDialog: true })
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab")
      expect(await focused(), `after ${i + 1} Tab(s)`).toMatchObject({ inDialog: true })
    }
    await page.keyboard.press("Shift+Tab")
    expect(await focused()).toMatchObject({ inDialog: true })
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "hidden" })
    expect(await focused()).toMatchObject({ label: "Delete key keyboard key" })
    const keys = await server.dashboard("GET", "/platform/dashboard/api-keys")
    expect((keys.body as Array<{ name: string }>).map((k) => k.name)).toContain("keyboard key")
    await page.getByRole("row", { name: /keyboard key/ }).waitFor()
    await close(page)
  }, 60_000)

  it("times are in the browser's zone, with the exact ISO time on hover", async () => {
    for (const timezoneId of ["Asia/Kolkata", "America/Los_Angeles"]) {
      const page = await open(false, { timezoneId, locale: "en-GB" })
      await openConsolePage(page, server.baseUrl, CONSOLE_PAGES.find((p) => p.name === "webhooks")!, fixture)
      const times = await page.locator("time").evaluateAll((els, zone) => els.map((el) => {
        const iso = el.getAttribute("datetime")!
        return {
          title: el.getAttribute("title"),
          iso: new Date(iso).toISOString(),
          text: el.textContent,
          local: new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium", timeZone: zone }).format(new Date(iso))
        }
      }), timezoneId)
      expect(times.length).toBeGreaterThanOrEqual(5)
      for (const t of times) {
        expect(t.title).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        expect(t.title).toBe(t.iso)
        expect(t.text).toBe(t.local)
      }
      await close(page)
    }
  }, 60_000)

  it("the built console's script is sent with a year of immutable caching, in brotli or gzip as the browser takes", async () => {
    const html = await (await fetch(`${server.baseUrl}/dashboard/webhooks?limit=2`)).text()
    const script = /<script[^>]*type="module"[^>]*src="([^"]+)"/.exec(html)?.[1]
    expect(script).toMatch(/^\/dashboard\/assets\/index-[\w-]+\.js$/)
    // node:http shows the bytes on the wire (fetch would decompress them).
    const wire = (acceptEncoding: string) => new Promise<{ encoding: string | undefined; cache: string | undefined; bytes: number }>((resolve, reject) => {
      request(`${server.baseUrl}${script}`, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
        let bytes = 0
        res.on("data", (c: Buffer) => (bytes += c.length))
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], cache: res.headers["cache-control"], bytes }))
      }).on("error", reject).end()
    })
    const [plain, gzip, br] = [await wire("identity"), await wire("gzip"), await wire("gzip, deflate, br, zstd")]
    for (const sent of [plain, gzip, br]) expect(sent.cache).toBe("public, max-age=31536000, immutable")
    expect([plain.encoding, gzip.encoding, br.encoding]).toEqual([undefined, "gzip", "br"])
    expect(gzip.bytes).toBeLessThan(plain.bytes / 2)
    expect(br.bytes).toBeLessThan(gzip.bytes)
  }, 30_000)

  it("subscriptions page both ways with the API's cursors (two a page), and each page's URL loads the same rows", async () => {
    const all = (await server.dashboard("GET", "/platform/v1/webhooks/subscriptions?limit=200")).body.data.map((s: { id: number }) => s.id) as Array<number>
    expect(all).toHaveLength(5)
    // The console writes the cursor of a page's edge row as the server does (the envelope has only next_cursor).
    const first = (await server.dashboard("GET", "/platform/v1/webhooks/subscriptions?limit=1")).body
    expect(first.next_cursor).toBe(cursorOf(all[0]!))
    const page = await open(false)
    await page.goto(`${server.baseUrl}/dashboard/webhooks?limit=2`)
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(0, 2))
    expect(await pagerLink(page, "« Newer").count()).toBe(0)
    await pagerLink(page, "Older »").click()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(2, 4))
    await page.reload()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(2, 4))
    await pagerLink(page, "Older »").click()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(4))
    expect(await pagerLink(page, "Older »").count()).toBe(0)
    // Back towards newer rows, page by page, with the `before` cursor.
    await pagerLink(page, "« Newer").click()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(2, 4))
    expect(new URL(page.url()).searchParams.has("before")).toBe(true)
    await page.reload()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(2, 4))
    await pagerLink(page, "« Newer").click()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(0, 2))
    expect(await pagerLink(page, "« Newer").count()).toBe(0)
    // From a page reached backwards, Older goes on from its last row.
    await pagerLink(page, "Older »").click()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(2, 4))
    await pagerLink(page, "« Newest").click()
    await expect.poll(() => idsShown(page, "Subscription")).toEqual(all.slice(0, 2))
    expect(new URL(page.url()).search).toBe("?limit=2")
    await close(page)
  }, 60_000)

  it("the deliveries log: its filters and cursor survive a reload, and it pages both ways", async () => {
    const all = (await server.dashboard("GET", "/platform/v1/webhooks/deliveries?event_type=message.received&limit=200")).body.data.map((d: { id: number }) => d.id) as Array<number>
    expect(all.length).toBeGreaterThanOrEqual(5)
    const page = await open(false)
    await page.goto(`${server.baseUrl}/dashboard/webhooks/deliveries?limit=2`)
    await page.getByLabel("Event type", { exact: true }).selectOption("message.received")
    await page.getByLabel("Status", { exact: true }).selectOption("delivered")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => new URL(page.url()).search).toBe("?limit=2&status=delivered&event_type=message.received")
    await expect.poll(() => idsShown(page, "Delivery")).toEqual(all.slice(0, 2))
    await pagerLink(page, "Older »").click()
    await expect.poll(() => idsShown(page, "Delivery")).toEqual(all.slice(2, 4))
    const bookmarked = page.url()
    expect(new URL(bookmarked).searchParams.has("after")).toBe(true)
    // The URL alone (a bookmark, a link shared) opens the same filtered page.
    const other = await open(false)
    await other.goto(bookmarked)
    await expect.poll(() => idsShown(other, "Delivery")).toEqual(all.slice(2, 4))
    expect(await other.getByLabel("Event type", { exact: true }).inputValue()).toBe("message.received")
    expect(await other.getByLabel("Status", { exact: true }).inputValue()).toBe("delivered")
    await close(other)
    await pagerLink(page, "« Newer").click()
    await expect.poll(() => idsShown(page, "Delivery")).toEqual(all.slice(0, 2))
    expect(await pagerLink(page, "« Newer").count()).toBe(0)
    await close(page)
  }, 60_000)
})
