import { type RealServer, startRealServer } from "@platform/test-support/real-server"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_DIR, launchChromium, screenshot } from "./support/browser.js"

// One server with the built console and one browser for the file. The sandbox decides a
// submitted template (approved, or rejected for a name starting reject_) by a status callback
// one delay later: 4 s here, so the page shows an edited template under review before its
// decision; a name starting review_ stays under review, for the refused edit (409).
let server: RealServer
let browser: Browser
beforeAll(async () => {
  ;[server, browser] = await Promise.all([
    startRealServer({ DASHBOARD_DIR: CONSOLE_DIR, SANDBOX_CALLBACK_DELAY_MS: "4000" }),
    launchChromium()
  ])
}, 120_000)
afterAll(async () => {
  await Promise.all([browser?.close(), server?.close()])
})

const email = `templates-${Date.now()}@example.com`
const password = "templates-password-1"

/** A 1×1 PNG: a real image for the header sample upload. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64")

const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name })
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true })
const status = (page: Page) => page.getByTestId("template-status")
const label = (page: Page, text: string) => page.getByLabel(text, { exact: true })

/** The template page's status reaching `want` (the page follows the review by itself). */
const statusBecomes = (page: Page, want: string) => expect.poll(() => status(page).textContent(), { timeout: 30_000 }).toBe(want)

const newTemplate = async (page: Page, name: string, category = "utility") => {
  await navLink(page, "Templates").click()
  await page.getByRole("link", { name: "Create a template" }).click()
  await heading(page, "New template").waitFor()
  await label(page, "Name").fill(name)
  await label(page, "Category").selectOption(category)
}

const create = async (page: Page) => {
  await page.getByRole("button", { name: "Create template" }).click()
  await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toMatch(/^\/dashboard\/templates\/\d+$/)
}

const uploadSample = async (page: Page, field: string, name: string) => {
  await label(page, field).setInputFiles({ name, mimeType: "image/png", buffer: PNG })
  await page.getByText(`Uploaded ${name}`).waitFor()
}

describe("templates in the console", () => {
  it("create (text, media header with buttons, authentication, carousel), see each approved, a field error, edit, delete, sync", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(`${server.baseUrl}/dashboard/signup`)
    await page.getByLabel("Your name").fill("Template Tester")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByLabel("Account name (optional)").fill("Templates Co")
    await page.getByRole("button", { name: "Sign up" }).click()
    await heading(page, "Templates Co").waitFor()

    // A sandbox chat channel, the home of the templates.
    await navLink(page, "Channels").click()
    await page.getByRole("button", { name: "Connect" }).click()
    const channelRow = page.getByRole("row", { name: /WhatsApp/ })
    await channelRow.getByText("available").waitFor()
    const channelId = (await channelRow.getByRole("cell").first().textContent())!.trim()

    await navLink(page, "Templates").click()
    await page.getByText("No templates yet").waitFor()
    await screenshot(page, "templates-empty")

    // The API's 422 shows next to the field it names.
    await newTemplate(page, "Order Update")
    await page.getByLabel("Body text only").check()
    await label(page, "Body text").fill("Hello {{1}}, your order {{2}} has shipped.")
    await label(page, "Sample for {{1}}").fill("Ana")
    await label(page, "Sample for {{2}}").fill("A-100")
    await page.getByRole("button", { name: "Create template" }).click()
    await expect.poll(() => label(page, "Name").getAttribute("aria-invalid")).toBe("true")
    expect(await page.locator(".field-error").first().textContent()).toMatch(/lower case letters, digits and underscores/)
    expect(await page.getByRole("alert").textContent()).toMatch(/Error 422 in name/)
    await screenshot(page, "template-new-error")

    // A template under review (the sandbox holds review_* pending): its edit is refused (409).
    await label(page, "Name").fill("review_hold")
    await create(page)
    await heading(page, "review_hold").waitFor()
    await page.getByRole("button", { name: "Save changes" }).click()
    await page.getByTestId("status-locked").waitFor()
    expect(await page.getByTestId("status-locked").textContent()).toMatch(/409 status_locked.*pending review upstream/)
    expect(await status(page).textContent()).toBe("pending")
    await screenshot(page, "template-pending-locked")

    // A text template: created pending, then approved.
    await newTemplate(page, "order_update")
    await page.getByLabel("Body text only").check()
    await label(page, "Body text").fill("Hello {{1}}, your order {{2}} has shipped.")
    await label(page, "Sample for {{1}}").fill("Ana")
    await label(page, "Sample for {{2}}").fill("A-100")
    await create(page)
    const textUrl = page.url()
    await heading(page, "order_update").waitFor()
    await statusBecomes(page, "approved")
    await screenshot(page, "template-approved")

    // Edit it: submitted again, pending, approved, and the new text held by the server.
    await label(page, "Body text").fill("Hi {{1}}, order {{2}} is on its way.")
    await page.getByRole("button", { name: "Save changes" }).click()
    await statusBecomes(page, "pending")
    await statusBecomes(page, "approved")
    await page.reload()
    await expect.poll(() => page.getByTestId("components").textContent()).toContain("Hi {{1}}, order {{2}} is on its way.")
    expect(await label(page, "Body text").inputValue()).toBe("Hi {{1}}, order {{2}} is on its way.")

    // An IMAGE header (the PNG uploaded for its handle), footer and buttons; a component error first.
    await newTemplate(page, "spring_offer", "marketing")
    await label(page, "Header format").selectOption("IMAGE")
    await uploadSample(page, "Header sample (image)", "spring.png")
    await label(page, "Body text").fill("Our spring offer is here, {{1}}.")
    await label(page, "Sample for {{1}}").fill("Ana")
    await label(page, "Footer (optional)").fill("Reply STOP to opt out")
    await page.getByRole("button", { name: "Add a button" }).click()
    await label(page, "Button 1 text").fill("Interested")
    await page.getByRole("button", { name: "Add a button" }).click()
    await label(page, "Button 2 kind").selectOption("URL")
    await label(page, "Button 2 text").fill("See the offer")
    await label(page, "Button 2 url").fill("https://example.com/offer/{{1}}")
    await page.getByRole("button", { name: "Add a button" }).click()
    await label(page, "Button 3 kind").selectOption("PHONE_NUMBER")
    await label(page, "Button 3 text").fill("Call us")
    await label(page, "Button 3 phone number").fill("+15550001234")
    await page.getByRole("button", { name: "Create template" }).click()
    // The dynamic URL has no example: refused at that button's field.
    await expect.poll(() => label(page, "Button 2 example URL").getAttribute("aria-invalid")).toBe("true")
    expect(await page.getByRole("alert").textContent()).toMatch(/components\.3\.buttons\.1\.example/)
    await screenshot(page, "template-new-button-error")
    await label(page, "Button 2 example URL").fill("https://example.com/offer/spring")
    await screenshot(page, "template-new-media")
    await create(page)
    await statusBecomes(page, "approved")
    const shown = JSON.parse((await page.getByTestId("components").textContent())!) as Array<{ type: string; format?: string; example?: { header_handle?: Array<string> }; buttons?: Array<{ type: string }> }>
    expect(shown.map((c) => c.type)).toEqual(["HEADER", "BODY", "FOOTER", "BUTTONS"])
    expect(shown[0]!.format).toBe("IMAGE")
    expect(shown[0]!.example?.header_handle?.[0]).toMatch(/\S/)
    expect(shown[3]!.buttons!.map((b) => b.type)).toEqual(["QUICK_REPLY", "URL", "PHONE_NUMBER"])
    await screenshot(page, "template-media")
    // The edit form starts from the stored components.
    expect(await label(page, "Footer (optional)").inputValue()).toBe("Reply STOP to opt out")
    expect(await label(page, "Button 2 url").inputValue()).toBe("https://example.com/offer/{{1}}")
    expect(await page.getByText(/^Uploaded: handle /).count()).toBe(1)

    // Authentication: the OTP shape (no body text; code expiry; copy-code button).
    await newTemplate(page, "login_code", "authentication")
    await label(page, "Code expires after (minutes, 1 to 90; empty: no expiry note)").fill("5")
    await label(page, "Button text").fill("Copy the code")
    await screenshot(page, "template-new-authentication")
    await create(page)
    await statusBecomes(page, "approved")
    expect(await page.getByTestId("components").textContent()).toContain("\"otp_type\": \"COPY_CODE\"")
    expect(await page.getByTestId("components").textContent()).toContain("\"code_expiration_minutes\": 5")

    // A carousel: a body and two cards, each with an uploaded image, body and a button.
    await newTemplate(page, "carousel_offers", "marketing")
    await label(page, "Layout").selectOption("carousel")
    await label(page, "Body text").fill("Pick your favourite.")
    for (const n of [1, 2]) {
      await uploadSample(page, `Card ${n} header sample (image)`, `card-${n}.png`)
      await label(page, `Card ${n} body`).fill(`Card number ${n}`)
      await label(page, `Card ${n} button 1 text`).fill(`Choose ${n}`)
    }
    await screenshot(page, "template-new-carousel")
    await create(page)
    await statusBecomes(page, "approved")
    const carousel = JSON.parse((await page.getByTestId("components").textContent())!) as Array<{ type: string; cards?: Array<{ components: Array<{ type: string }> }> }>
    expect(carousel.map((c) => c.type)).toEqual(["BODY", "CAROUSEL"])
    expect(carousel[1]!.cards!.map((c) => c.components.map((cc) => cc.type))).toEqual([["HEADER", "BODY", "BUTTONS"], ["HEADER", "BODY", "BUTTONS"]])
    expect(await label(page, "Card 2 body").inputValue()).toBe("Card number 2")
    expect(await label(page, "Card 2 button 1 text").inputValue()).toBe("Choose 2")

    // A name starting reject_ is rejected by the sandbox: the list shows the reason.
    await newTemplate(page, "reject_me")
    await page.getByLabel("Body text only").check()
    await label(page, "Body text").fill("This one will be rejected.")
    await create(page)
    await statusBecomes(page, "rejected")
    await page.getByTestId("rejection-reason").waitFor()

    // The list: every template with its status; a filter in the URL.
    await navLink(page, "Templates").click()
    await expect.poll(() => page.getByRole("row").count()).toBe(7)
    const rejectedRow = page.getByRole("row", { name: /reject_me/ })
    expect(await rejectedRow.textContent()).toMatch(/rejected.*INVALID_FORMAT/i)
    await screenshot(page, "templates")
    await label(page, "Status").selectOption("approved")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(() => new URL(page.url()).search).toBe("?status=approved")
    await expect.poll(() => page.getByRole("row").count()).toBe(5)
    await page.reload()
    await expect.poll(() => label(page, "Status").inputValue()).toBe("approved")
    await expect.poll(() => page.getByRole("row").count()).toBe(5)

    // Delete one, confirmed: Cancel keeps it, Delete removes it here and upstream.
    await page.goto(`${server.baseUrl}/dashboard/templates?status=rejected`)
    await page.getByRole("link", { name: "reject_me" }).click()
    await page.getByRole("button", { name: "Delete template" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click()
    await heading(page, "reject_me").waitFor()
    await page.getByRole("button", { name: "Delete template" }).click()
    await screenshot(page, "template-delete-confirm")
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/dashboard/templates")
    // The header row, the four approved and the one held under review.
    await expect.poll(() => page.getByRole("row").count()).toBe(6)
    expect(await page.getByRole("link", { name: "reject_me" }).count()).toBe(0)

    // Sync: the upstream has the 5 templates the platform already lists.
    await label(page, "Channel to sync").selectOption(channelId)
    await page.getByRole("button", { name: "Sync templates" }).click()
    await expect.poll(() => page.getByTestId("sync-result").textContent()).toMatch(new RegExp(`^Channel ${channelId}: 0 imported, \\d+ updated, \\d+ skipped, 5 upstream in total\\.$`))
    await screenshot(page, "templates-synced")
    expect(await page.getByRole("row").count()).toBe(6)

    // The text template's page, loaded afresh from its URL.
    await page.goto(textUrl)
    await heading(page, "order_update").waitFor()
    await page.close()
  }, 300_000)

  it("at 390 px the list and the builder do not scroll sideways", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
    await page.goto(`${server.baseUrl}/dashboard/login?next=${encodeURIComponent("/templates")}`)
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Log in" }).click()
    await heading(page, "Templates").waitFor()
    await page.getByRole("link", { name: "order_update" }).waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await page.evaluate(() => document.getElementById("main")!.scrollWidth <= document.getElementById("main")!.clientWidth)).toBe(true)
    await screenshot(page, "templates-390px")
    await page.getByRole("link", { name: "Create a template" }).click()
    await heading(page, "New template").waitFor()
    await page.getByRole("button", { name: "Add a button" }).click()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await screenshot(page, "template-new-390px")
    await page.close()
  }, 60_000)
})
