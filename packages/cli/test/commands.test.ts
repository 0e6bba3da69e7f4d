import { mockApi, type Reply } from "@platform/test-support/mock-api"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()
const subs = "/platform/v1/webhooks/subscriptions"
const dels = "/platform/v1/webhooks/deliveries"
const bcs = "/platform/v1/broadcasts"
const bcPage = { data: [f.broadcast], has_more: false, next_cursor: null }
const to = ["--channel", "7", "--to", "15550001111"]
const base = { channel_id: 7, to: "15550001111" }

interface Case {
  readonly argv: ReadonlyArray<string>
  readonly route: readonly ["get" | "post" | "patch" | "delete", string]
  readonly reply: Reply
  readonly method: string
  readonly path: string
  readonly query?: Record<string, string>
  readonly body?: unknown
}

const tpl = "/platform/v1/templates"
const templateFile = join(mkdtempSync(join(tmpdir(), "cli-templates-")), "welcome.json")
writeFileSync(templateFile, JSON.stringify({ channel_id: 7, name: "welcome", language_code: "en_US", category: "marketing", components: [{ type: "BODY", text: "Hi" }] }))

const cases: ReadonlyArray<Case> = [
  { argv: ["templates", "list", "--channel", "7", "--name", "welcome", "--language", "en_US", "--category", "utility", "--status", "approved", "--inactive"], route: ["get", tpl], reply: { json: [f.template] }, method: "GET", path: tpl, query: { channel_id: "7", name: "welcome", language_code: "en_US", category: "utility", status: "approved", is_active: "false" } },
  { argv: ["templates", "get", "51"], route: ["get", `${tpl}/:id`], reply: { json: f.template }, method: "GET", path: `${tpl}/51` },
  { argv: ["templates", "create", "--channel", "7", "--name", "order_update", "--language", "en_US", "--category", "utility", "--body", "Order {{1}} has shipped", "--variables", "A-17"], route: ["post", tpl], reply: { json: f.template }, method: "POST", path: tpl, body: { channel_id: 7, name: "order_update", language_code: "en_US", category: "utility", body_text: "Order {{1}} has shipped", variables: ["A-17"] } },
  { argv: ["templates", "create", "--file", templateFile, "--category", "utility", "--parameter-format", "POSITIONAL"], route: ["post", tpl], reply: { json: f.template }, method: "POST", path: tpl, body: { channel_id: 7, name: "welcome", language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }], parameter_format: "POSITIONAL" } },
  { argv: ["templates", "update", "51", "--components", '[{"type":"BODY","text":"Hello"}]'], route: ["patch", `${tpl}/:id`], reply: { json: f.template }, method: "PATCH", path: `${tpl}/51`, body: { components: [{ type: "BODY", text: "Hello" }] } },
  { argv: ["templates", "delete", "51"], route: ["delete", `${tpl}/:id`], reply: { status: 204 }, method: "DELETE", path: `${tpl}/51` },
  { argv: ["templates", "sync", "--channel", "7"], route: ["post", `${tpl}/sync`], reply: { json: { imported: 2, updated: 1, skipped: 3, total: 6 } }, method: "POST", path: `${tpl}/sync`, body: { channel_id: 7 } },
  { argv: ["send", "text", ...to, "--text", "hi", "--preview-url", "--reply-to", "wamid.prev"], route: ["post", "/platform/v1/messages"], reply: { json: f.sendResult }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "text", text: "hi", preview_url: true, context: { message_id: "wamid.prev" } } },
  { argv: ["send", "template", ...to, "--name", "order_update", "--language", "en_US", "--components", '[{"type":"body","parameters":[{"type":"text","text":"42"}]}]'], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "template" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "template", template_name: "order_update", language_code: "en_US", components: [{ type: "body", parameters: [{ type: "text", text: "42" }] }] } },
  { argv: ["send", "template", ...to, "--name", "order_update", "--language", "en_US", "--variables", "A-17,Friday"], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "template" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "template", template_name: "order_update", language_code: "en_US", components: [{ type: "body", parameters: [{ type: "text", text: "A-17" }, { type: "text", text: "Friday" }] }] } },
  { argv: ["send", "template", ...to, "--name", "order_update", "--language", "en_US", "--variables", "A-17", "--components", '[{"type":"header","parameters":[{"type":"text","text":"Hi"}]}]'], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "template" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "template", template_name: "order_update", language_code: "en_US", components: [{ type: "header", parameters: [{ type: "text", text: "Hi" }] }, { type: "body", parameters: [{ type: "text", text: "A-17" }] }] } },
  { argv: ["send", "media", ...to, "--type", "document", "--link", "https://x.test/a.pdf", "--filename", "a.pdf", "--caption", "invoice"], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "document" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "document", media: { link: "https://x.test/a.pdf", caption: "invoice", filename: "a.pdf" } } },
  { argv: ["send", "media", ...to, "--type", "audio", "--id", "m1", "--voice"], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "audio" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "audio", media: { id: "m1", voice: true } } },
  { argv: ["send", "reaction", ...to, "--message-id", "wamid.1", "--emoji", "👍"], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "reaction" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "reaction", reaction: { message_id: "wamid.1", emoji: "👍" } } },
  { argv: ["send", "location", ...to, "--latitude", "52.52", "--longitude", "13.405", "--name", "Berlin"], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "location" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "location", location: { latitude: 52.52, longitude: 13.405, name: "Berlin" } } },
  { argv: ["send", "media", ...to, "--type", "image", "--link", "https://x.test/a.png", "--reply-to", "wamid.prev"], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "image" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "image", media: { link: "https://x.test/a.png" }, context: { message_id: "wamid.prev" } } },
  { argv: ["send", "interactive", ...to, "--interactive", '{"type":"button","body":{"text":"Pick"}}'], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "interactive" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "interactive", interactive: { type: "button", body: { text: "Pick" } } } },
  { argv: ["send", "contacts", ...to, "--contacts", '[{"name":{"formatted_name":"Ann"}}]'], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "contacts" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "contacts", contacts: [{ name: { formatted_name: "Ann" } }] } },
  { argv: ["send", "catalog", ...to, "--interactive", '{"type":"catalog_message"}'], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "catalog" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "catalog", interactive: { type: "catalog_message" } } },
  { argv: ["send", "typing", ...to], route: ["post", "/platform/v1/messages"], reply: { json: { ...f.sendResult, type: "typing" } }, method: "POST", path: "/platform/v1/messages", body: { ...base, type: "typing" } },
  { argv: ["mark-read", "--channel", "7", "--message-id", "wamid.in1"], route: ["post", "/platform/v1/messages/mark-read"], reply: { json: { message_id: "wamid.in1", status: "read" } }, method: "POST", path: "/platform/v1/messages/mark-read", body: { channel_id: 7, message_id: "wamid.in1" } },
  { argv: ["media", "upload", "--channel", "7", "--url", "https://cdn.test/cat.png", "--mime-type", "image/png"], route: ["post", "/platform/v1/media"], reply: { json: { channel_id: 7, media_id: "m9" } }, method: "POST", path: "/platform/v1/media", body: { channel_id: 7, url: "https://cdn.test/cat.png", mime_type: "image/png" } },
  { argv: ["media", "url", "m9", "--channel", "7"], route: ["get", "/platform/v1/media/:id/url"], reply: { json: { channel_id: 7, url: "http://localhost:8080/m9", mime_type: "image/png", file_size: 3 } }, method: "GET", path: "/platform/v1/media/m9/url", query: { channel_id: "7" } },
  { argv: ["media", "delete", "m9", "--channel", "7"], route: ["delete", "/platform/v1/media/:id"], reply: { json: { deleted: true } }, method: "DELETE", path: "/platform/v1/media/m9", query: { channel_id: "7" } },
  { argv: ["channels", "list"], route: ["get", "/platform/v1/channels"], reply: { json: [f.channel] }, method: "GET", path: "/platform/v1/channels" },
  { argv: ["channels", "list", "--type", "social"], route: ["get", "/platform/v1/channels"], reply: { json: [{ ...f.channel, type: "social" }] }, method: "GET", path: "/platform/v1/channels", query: { type: "social" } },
  { argv: ["channels", "inbound", "7", "--off"], route: ["patch", "/platform/v1/channels/:id/inbound"], reply: { json: { ...f.channel, inbound_enabled: false } }, method: "PATCH", path: "/platform/v1/channels/7/inbound", body: { enabled: false } },
  { argv: ["channels", "inbound", "7", "--on"], route: ["patch", "/platform/v1/channels/:id/inbound"], reply: { json: { ...f.channel, inbound_enabled: true } }, method: "PATCH", path: "/platform/v1/channels/7/inbound", body: { enabled: true } },
  { argv: ["messages", "list", "--channel", "7", "--conversation", "31", "--contact", "41", "--peer", "15550001111", "--direction", "outbound", "--type", "text", "--status", "delivered", "--since", "2025-01-01T00:00:00Z", "--until", "2025-02-01T00:00:00Z", "--limit", "20"], route: ["get", "/platform/v1/messages"], reply: { json: { data: [f.message], has_more: false, next_cursor: null } }, method: "GET", path: "/platform/v1/messages", query: { channel_id: "7", conversation_id: "31", contact_id: "41", peer_id: "15550001111", direction: "outbound", type: "text", status: "delivered", since: "2025-01-01T00:00:00Z", until: "2025-02-01T00:00:00Z", limit: "20" } },
  { argv: ["messages", "list", "--after", "aWQ6OQ"], route: ["get", "/platform/v1/messages"], reply: { json: { data: [f.message], has_more: false, next_cursor: null } }, method: "GET", path: "/platform/v1/messages", query: { after: "aWQ6OQ" } },
  { argv: ["messages", "get", "51"], route: ["get", "/platform/v1/messages/:id"], reply: { json: f.message }, method: "GET", path: "/platform/v1/messages/51" },
  { argv: ["conversations", "list", "--channel", "7", "--status", "active", "--peer", "15550001111", "--limit", "5"], route: ["get", "/platform/v1/conversations"], reply: { json: { data: [f.conversation], has_more: false, next_cursor: null } }, method: "GET", path: "/platform/v1/conversations", query: { channel_id: "7", status: "active", peer_id: "15550001111", limit: "5" } },
  { argv: ["conversations", "get", "31"], route: ["get", "/platform/v1/conversations/:id"], reply: { json: f.conversation }, method: "GET", path: "/platform/v1/conversations/31" },
  { argv: ["contacts", "list", "--channel", "7", "--query", "ada", "--limit", "10", "--before", "aWQ6OQ"], route: ["get", "/platform/v1/contacts"], reply: { json: { data: [f.contact], has_more: false, next_cursor: null } }, method: "GET", path: "/platform/v1/contacts", query: { channel_id: "7", q: "ada", limit: "10", before: "aWQ6OQ" } },
  { argv: ["contacts", "get", "41"], route: ["get", "/platform/v1/contacts/:id"], reply: { json: f.contact }, method: "GET", path: "/platform/v1/contacts/41" },
  { argv: ["contacts", "update", "41", "--display-name", "Ada Lovelace", "--metadata", '{"crm_id":"C-42","old":null}'], route: ["patch", "/platform/v1/contacts/:id"], reply: { json: f.contact }, method: "PATCH", path: "/platform/v1/contacts/41", body: { display_name: "Ada Lovelace", contact_metadata: { crm_id: "C-42", old: null } } },
  { argv: ["contacts", "delete", "41"], route: ["delete", "/platform/v1/contacts/:id"], reply: { status: 202, json: f.contactDeleted }, method: "DELETE", path: "/platform/v1/contacts/41" },
  { argv: ["conversations", "update", "31", "--status", "ended"], route: ["patch", "/platform/v1/conversations/:id"], reply: { json: f.conversation }, method: "PATCH", path: "/platform/v1/conversations/31", body: { status: "ended" } },
  { argv: ["subscriptions", "create", "--url", "https://example.com/webhooks", "--events", "message.sent,message.read", "--channel", "7", "--header", "X-Team: core", "--buffer-window", "5", "--inactive"], route: ["post", subs], reply: { status: 201, json: { ...f.subscription, secret: "whsec_abc" } }, method: "POST", path: subs, body: { target_url: "https://example.com/webhooks", event_types: ["message.sent", "message.read"], platform_channel_id: 7, custom_headers: { "X-Team": "core" }, buffer_window_seconds: 5, is_active: false } },
  { argv: ["subscriptions", "list", "--limit", "5"], route: ["get", subs], reply: { json: { data: [f.subscription], has_more: false, next_cursor: null } }, method: "GET", path: subs, query: { limit: "5" } },
  { argv: ["subscriptions", "get", "11"], route: ["get", `${subs}/:id`], reply: { json: f.subscription }, method: "GET", path: `${subs}/11` },
  { argv: ["subscriptions", "update", "11", "--url", "https://example.com/v2", "--active"], route: ["patch", `${subs}/:id`], reply: { json: f.subscription }, method: "PATCH", path: `${subs}/11`, body: { target_url: "https://example.com/v2", is_active: true } },
  { argv: ["subscriptions", "update", "11", "--no-buffer-window"], route: ["patch", `${subs}/:id`], reply: { json: f.subscription }, method: "PATCH", path: `${subs}/11`, body: { buffer_window_seconds: null, buffer_max_batch: null } },
  { argv: ["subscriptions", "update", "11", "--no-events", "--no-channel", "--no-description", "--no-header", "--no-buffer-window", "--no-buffer-max-batch", "--no-inactivity-minutes"], route: ["patch", `${subs}/:id`], reply: { json: f.subscription }, method: "PATCH", path: `${subs}/11`, body: { event_types: [], platform_channel_id: null, description: null, custom_headers: null, buffer_window_seconds: null, buffer_max_batch: null, inactivity_minutes: null } },
  { argv: ["subscriptions", "delete", "11"], route: ["delete", `${subs}/:id`], reply: { status: 204 }, method: "DELETE", path: `${subs}/11` },
  { argv: ["subscriptions", "resume", "11"], route: ["post", `${subs}/:id/resume`], reply: { json: f.subscription }, method: "POST", path: `${subs}/11/resume` },
  { argv: ["subscriptions", "rotate-secret", "11"], route: ["post", `${subs}/:id/rotate-secret`], reply: { json: { ...f.subscription, secret: "whsec_new" } }, method: "POST", path: `${subs}/11/rotate-secret` },
  { argv: ["subscriptions", "test", "11", "--event-type", "message.read"], route: ["post", `${subs}/:id/test`], reply: { json: { ...f.delivery, status: "pending" } }, method: "POST", path: `${subs}/11/test`, query: { event_type: "message.read" } },
  { argv: ["deliveries", "list", "--subscription", "11", "--errors-only", "--limit", "10"], route: ["get", dels], reply: { json: { mode: "native", data: [f.delivery], has_more: false, next_cursor: null } }, method: "GET", path: dels, query: { subscription_id: "11", errors_only: "true", limit: "10" } },
  { argv: ["deliveries", "list", "--after", "ZDoy", "--before", "ZDo5"], route: ["get", dels], reply: { json: { mode: "native", data: [f.delivery], has_more: false, next_cursor: null } }, method: "GET", path: dels, query: { after: "ZDoy", before: "ZDo5" } },
  { argv: ["subscriptions", "list", "--before", "aWQ6Mw"], route: ["get", subs], reply: { json: { data: [f.subscription], has_more: false, next_cursor: null } }, method: "GET", path: subs, query: { before: "aWQ6Mw" } },
  { argv: ["deliveries", "list", "--mode", "meta"], route: ["get", dels], reply: { json: { mode: "meta", data: [], has_more: false, next_cursor: null } }, method: "GET", path: dels, query: { mode: "meta" } },
  { argv: ["deliveries", "get", "21", "--full-envelope"], route: ["get", `${dels}/:id`], reply: { json: { ...f.delivery, envelope: f.envelope } }, method: "GET", path: `${dels}/21`, query: { include: "full_envelope" } },
  { argv: ["deliveries", "redeliver", "21"], route: ["post", `${dels}/:id/redeliver`], reply: { json: { ...f.delivery, id: 22 } }, method: "POST", path: `${dels}/21/redeliver` },
  { argv: ["broadcasts", "list", "--channel", "7", "--status", "draft", "--limit", "5"], route: ["get", bcs], reply: { json: bcPage }, method: "GET", path: bcs, query: { channel_id: "7", status: "draft", limit: "5" } },
  { argv: ["broadcasts", "get", "51"], route: ["get", `${bcs}/:id`], reply: { json: f.broadcast }, method: "GET", path: `${bcs}/51` },
  { argv: ["broadcasts", "create", "--name", "May promo", "--channel", "7", "--template", "may_promo", "--language", "en_US", "--components", '[{"type":"body","parameters":[{"type":"text","text":"Ada"}]}]'], route: ["post", bcs], reply: { status: 201, json: f.broadcast }, method: "POST", path: bcs, body: { name: "May promo", channel_id: 7, template_name: "may_promo", language_code: "en_US", components: [{ type: "body", parameters: [{ type: "text", text: "Ada" }] }] } },
  { argv: ["broadcasts", "recipients", "51", "--status", "read", "--limit", "10"], route: ["get", `${bcs}/:id/recipients`], reply: { json: { data: [f.broadcastRecipient], has_more: false, next_cursor: null, counts: f.broadcastRecipientCounts } }, method: "GET", path: `${bcs}/51/recipients`, query: { status: "read", limit: "10" } },
  { argv: ["broadcasts", "schedule", "51", "--at", "2030-06-01T09:00:00Z"], route: ["post", `${bcs}/:id/schedule`], reply: { json: { ...f.broadcast, status: "scheduled", scheduled_at: "2030-06-01T09:00:00.000Z" } }, method: "POST", path: `${bcs}/51/schedule`, body: { scheduled_at: "2030-06-01T09:00:00Z" } },
  { argv: ["broadcasts", "send", "51"], route: ["post", `${bcs}/:id/send`], reply: { status: 202, json: { ...f.broadcast, status: "sending" } }, method: "POST", path: `${bcs}/51/send` },
  { argv: ["broadcasts", "cancel", "51"], route: ["post", `${bcs}/:id/cancel`], reply: { json: f.broadcast }, method: "POST", path: `${bcs}/51/cancel` }
]

const named = cases.map((c) => ({ ...c, cmd: c.argv.filter((a) => !a.startsWith("-")).slice(0, 2).join(" ") }))

describe("commands", () => {
  it.each(named)("platform $cmd sends $method $path with the options as fields", async (c) => {
    api.on(c.route[0], c.route[1], c.reply)
    const ran = await cli(c.argv)
    expect(ran.stderr).not.toMatch(/Error/)
    expect(ran.code).toBe(0)
    expect(api.calls).toHaveLength(1)
    const call = api.calls[0]!
    expect([call.method, call.path]).toEqual([c.method, c.path])
    expect(call.query).toEqual(c.query ?? {})
    expect(call.body).toEqual(c.body)
    expect(call.headers.get("x-api-key")).toBe("pk_test_key")
  })

  it.each(named)("platform $cmd --json prints one JSON document that parses", async (c) => {
    api.on(c.route[0], c.route[1], c.reply)
    const ran = await cli([...c.argv, "--json"])
    expect(ran.code).toBe(0)
    const parsed = JSON.parse(ran.stdout) as unknown
    const body = "json" in c.reply ? c.reply.json : undefined
    if (body !== undefined && !(typeof body === "object" && body !== null && "has_more" in body)) expect(parsed).toEqual(body)
  })

  it("send media --file uploads the file first, then sends it by id", async () => {
    api.on("post", "/platform/v1/media", { json: { channel_id: 7, media_id: "m77" } })
    api.on("post", "/platform/v1/messages", { json: { ...f.sendResult, type: "image" } })
    const path = join(mkdtempSync(join(tmpdir(), "cli-media-")), "cat.png")
    writeFileSync(path, "png")
    const ran = await cli(["send", "media", ...to, "--type", "image", "--file", path, "--caption", "a cat"])
    expect(ran.code).toBe(0)
    expect(((api.calls[0]!.body as FormData).get("file") as File).name).toBe("cat.png")
    expect(api.calls[1]!.body).toEqual({ ...base, type: "image", media: { id: "m77", caption: "a cat" } })
  })

  it("templates list prints a table with the upstream status; sync says what it imported", async () => {
    api.on("get", tpl, { json: [{ ...f.template, meta_status: "approved" }] })
    const listed = await cli(["templates", "list"])
    expect(listed.code).toBe(0)
    expect(listed.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+LANGUAGE\s+CATEGORY\s+STATUS\s+CHANNEL\s+ACTIVE\s+CREATED$/)
    expect(listed.stdout).toMatch(/^51\s+order_update\s+en_US\s+utility\s+approved\s+7\s+yes\s/m)
    api.on("post", `${tpl}/sync`, { json: { imported: 2, updated: 1, skipped: 3, total: 6 } })
    const synced = await cli(["templates", "sync", "--channel", "7"])
    expect(synced.stdout).toBe("✓ 6 upstream template(s): 2 imported, 1 updated, 3 skipped\n")
  })

  it("templates create names the flag a 422 points at, and the API path of a field that came from --file", async () => {
    const body = { detail: [
      { loc: ["body", "components", 0, "text"], msg: "BODY text is forbidden for the authentication category", type: "value_error", input: "Hi", ctx: {} },
      { loc: ["body", "name"], msg: "must be 1 to 512 lower case letters, digits and underscores", type: "value_error", input: "Welcome", ctx: {} }
    ] }
    api.on("post", tpl, { status: 422, json: body })
    const ran = await cli(["templates", "create", "--file", templateFile, "--name", "Welcome", "--category", "authentication"])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("body.components.0.text: BODY text is forbidden for the authentication category")
    expect(ran.stderr).toContain("--name: must be 1 to 512 lower case letters, digits and underscores")
  })

  it("templates header-media uploads the file as multipart and prints the handle alone on stdout", async () => {
    api.on("post", `${tpl}/header-media`, { json: { handle: "4::aW1hZ2U=:ARY_sample" } })
    const path = join(mkdtempSync(join(tmpdir(), "cli-header-")), "header.png")
    writeFileSync(path, "png")
    const ran = await cli(["templates", "header-media", path, "--channel", "7"])
    expect(ran.code).toBe(0)
    expect(ran.stdout).toBe("4::aW1hZ2U=:ARY_sample\n")
    const form = api.calls[0]!.body as FormData
    expect(form.get("channel_id")).toBe("7")
    expect([(form.get("file") as File).name, (form.get("file") as File).type]).toEqual(["header.png", "image/png"])
  })

  it("templates create --file of a missing file is a usage error that sends nothing", async () => {
    const ran = await cli(["templates", "create", "--file", join(tmpdir(), "no-such-template.json")])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(/cannot read .*no-such-template\.json: ENOENT/)
    expect(api.calls).toHaveLength(0)
  })

  it("send typing says it shows a typing indicator, with no message id (a typing send creates no message)", async () => {
    api.on("post", "/platform/v1/messages", { json: { channel_id: 7, message_id: "", type: "typing" } })
    const ran = await cli(["send", "typing", ...to])
    expect(ran).toMatchObject({ code: 0, stdout: "✓ Showing a typing indicator to 15550001111 on channel 7\n" })
  })

  it("subscriptions test of a type the subscription does not receive names the types it does (422 event_not_configured)", async () => {
    const body = { detail: { code: "event_not_configured", message: "the subscription is not configured for this event type", configured_event_types: ["message.received", "message.read"] } }
    api.on("post", `${subs}/:id/test`, { status: 422, json: body })
    const ran = await cli(["subscriptions", "test", "11", "--event-type", "message.sent"])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toBe(
      "Error: subscription 11 does not receive message.sent; it is subscribed to message.received, message.read. " +
        "Test one of those with --event-type, or add the type with `platform subscriptions update 11 --events ...`.\n"
    )
    const json = await cli(["subscriptions", "test", "11", "--event-type", "message.sent", "--json"])
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { exit_code: 1, status: 422, code: "event_not_configured", body } })
  })

  it("messages list prints a table of the stored messages, with the text shortened to one line", async () => {
    api.on("get", "/platform/v1/messages", { json: { data: [{ ...f.message, text: "line one\nline two" }], has_more: true, next_cursor: "aWQ6NTA" } })
    const ran = await cli(["messages", "list"])
    expect(ran.code).toBe(0)
    const [head, row] = ran.stdout.trimEnd().split("\n")
    expect(head!.split(/\s{2,}/)).toEqual(["ID", "DIR", "TYPE", "STATUS", "CHANNEL", "CONV", "TEXT", "CREATED"])
    expect(row).toMatch(/^51\s+out\s+text\s+delivered\s+7\s+31\s+line one line two\s+2025-01-02T03:04:05Z$/)
    expect(ran.stderr).toMatch(/More messages: add --after aWQ6NTA for the next page, or --all/)
  })

  it.each([
    [["messages", "list", "--since", "yesterday"], { loc: ["query", "since"], msg: "must be an ISO 8601 date-time" }, "--since"],
    [["contacts", "list", "--query", "x"], { loc: ["query", "q"], msg: "is odd" }, "--query"],
    [["contacts", "update", "41", "--display-name", "x"], { loc: ["body", "display_name"], msg: "must be at most 255 characters" }, "--display-name"]
  ] as const)("a 422 of %j names the flag the value came from", async (argv, issue, flag) => {
    const path = argv[0] === "messages" ? "/platform/v1/messages" : argv[1] === "list" ? "/platform/v1/contacts" : "/platform/v1/contacts/:id"
    api.on(argv[1] === "update" ? "patch" : "get", path, { status: 422, json: { detail: [{ ...issue, type: "value_error", input: "x", ctx: {} }] } })
    const ran = await cli([...argv])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain(`${flag}: ${issue.msg}`)
  })

  it("contacts update without --display-name or --metadata is a usage error, and --metadata must be a JSON object", async () => {
    const nothing = await cli(["contacts", "update", "41"])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toMatch(/nothing to change/)
    const notObject = await cli(["contacts", "update", "41", "--metadata", "[1]"])
    expect(notObject.code).toBe(2)
    expect(notObject.stderr).toMatch(/--metadata.*must be a JSON object/)
    expect(api.calls).toHaveLength(0)
  })

  it("subscriptions update --help says --header and --events replace the stored headers and types (PATCH sends the whole set)", async () => {
    const ran = await cli(["subscriptions", "update", "--help"])
    const help = ran.stdout.replace(/\s+/g, " ")
    expect(help).toContain("--header <name:value> custom header sent with each delivery (repeatable); the headers given replace every stored one")
    expect(help).toContain("--events <types> the event types it receives from now on, comma-separated (replaces the list)")
    api.on("patch", `${subs}/:id`, { json: f.subscription })
    await cli(["subscriptions", "update", "11", "--header", "X-C: 3"])
    expect(api.calls[0]!.body).toEqual({ custom_headers: { "X-C": "3" } })
  })

  it("every send carries an Idempotency-Key, the given one when --idempotency-key is set", async () => {
    api.on("post", "/platform/v1/messages", { json: f.sendResult })
    await cli(["send", "text", ...to, "--text", "a"])
    await cli(["send", "text", ...to, "--text", "a", "--idempotency-key", "order-42"])
    expect(api.calls[0]!.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/)
    expect(api.calls[1]!.headers.get("idempotency-key")).toBe("order-42")
  })

  it("subscriptions get and list say why a subscription is off or paused (410 Gone, auto-pause)", async () => {
    const gone = { ...f.subscription, is_active: false, is_paused: false, paused_reason: "receiver_gone_410" }
    const off = { ...f.subscription, id: 12, is_active: false, is_paused: false, paused_reason: null }
    const paused = { ...f.subscription, id: 13, is_paused: true, paused_reason: "auto_paused_high_failure_rate" }
    api.on("get", `${subs}/:id`, { json: gone })
    const one = await cli(["subscriptions", "get", "11"])
    expect(one.stdout).toMatch(/^state\s+inactive \(receiver_gone_410\)$/m)
    api.on("get", subs, { json: { data: [gone, off, paused], has_more: false, next_cursor: null } })
    const lines = (await cli(["subscriptions", "list"])).stdout.trimEnd().split("\n")
    expect(lines[1]).toMatch(/\sinactive \(receiver_gone_410\)\s/)
    expect(lines[2]).toMatch(/\sinactive\s/)
    expect(lines[2]).not.toContain("(")
    expect(lines[3]).toMatch(/\spaused \(auto_paused_high_failure_rate\)\s/)
  })

  it("subscriptions list shows a catch-all subscription's events as get and create do: all (except message.received)", async () => {
    const catchAll = { ...f.subscription, id: 14, event_types: [] }
    api.on("get", subs, { json: { data: [catchAll], has_more: false, next_cursor: null } })
    const listed = (await cli(["subscriptions", "list"])).stdout.trimEnd().split("\n")
    expect(listed[1]).toContain(" all (except message.received) ")
    api.on("get", `${subs}/:id`, { json: catchAll })
    expect((await cli(["subscriptions", "get", "14"])).stdout).toMatch(/^event_types\s+all \(except message\.received\)$/m)
  })

  it("deliveries list with a misspelt --event-type says the type is unknown instead of a bare 'No deliveries.'", async () => {
    const empty = { json: { mode: "native", data: [], has_more: false, next_cursor: null } }
    api.on("get", dels, empty, empty)
    const typo = await cli(["deliveries", "list", "--event-type", "message.sentt"])
    expect(typo.code).toBe(0)
    expect(api.calls[0]!.query).toEqual({ event_type: "message.sentt" }) // still asked as given: the API may know newer types
    expect(typo.stderr).toContain("No deliveries.")
    expect(typo.stderr).toContain("\"message.sentt\" is not an event type this CLI knows")
    expect(typo.stderr).toContain("message.sent, message.delivered")
    const known = await cli(["deliveries", "list", "--event-type", "message.sent"])
    expect(known.stderr).toBe("No deliveries.\n")
  })

  it("subscriptions create and update say which --header names the API dropped as reserved (Authorization, Content-Type, ...)", async () => {
    api.on("post", subs, { status: 201, json: { ...f.subscription, custom_headers: { "X-Team": "core" }, secret: "whsec_abc" } })
    const created = await cli(["subscriptions", "create", "--url", "https://example.com/h", "--header", "Authorization: Bearer t", "--header", "X-Team: core", "--header", "content-type: text/plain"])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain("Not stored: Authorization, content-type (reserved header names")
    api.on("patch", `${subs}/:id`, { json: { ...f.subscription, custom_headers: { "X-Team": "core" } } })
    const kept = await cli(["subscriptions", "update", "11", "--header", "X-Team: core"])
    expect(kept.stderr).not.toContain("Not stored")
    const json = await cli(["subscriptions", "update", "11", "--header", "Authorization: x", "--json"])
    expect(json.stderr).toBe("")
    const updated = await cli(["subscriptions", "update", "11", "--header", "Authorization: x"])
    expect(updated.stderr).toContain("Not stored: Authorization (reserved header names")
  })

  it("channels list prints a table for people, without colour codes off a terminal", async () => {
    api.on("get", "/platform/v1/channels", { json: [f.channel, { ...f.channel, channel_id: 8, type: "social", name: null, username: "shop", status: "inactive", inbound_enabled: false }] })
    const ran = await cli(["channels", "list"])
    const lines = ran.stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+NAME\s+STATUS\s+INBOUND\s+QUALITY\s+CREATED$/)
    expect(lines[1]).toMatch(/^7\s+chat\s+Support line\s+active\s+on\s+GREEN/)
    expect(lines[2]).toMatch(/^8\s+social\s+shop\s+inactive\s+off/)
    expect(ran.stdout).not.toContain("\u001b[")
  })

  it.each([
    ["on a terminal", {}, [], true],
    ["off with NO_COLOR", { NO_COLOR: "1" }, [], false],
    ["off with --no-color", {}, ["--no-color"], false]
  ] as const)("colours are %s", async (_name, env, flags, coloured) => {
    api.on("get", "/platform/v1/channels", { json: [f.channel] })
    const ran = await cli(["channels", "list", ...flags], { tty: true, env })
    expect(ran.stdout.includes("\u001b[")).toBe(coloured)
  })

  it("subscriptions create prints the secret once with a warning on stderr", async () => {
    api.on("post", subs, { status: 201, json: { ...f.subscription, secret: "whsec_abc" } })
    const ran = await cli(["subscriptions", "create", "--url", "https://example.com/webhooks"])
    expect(ran.stdout).toContain("Signing secret: whsec_abc")
    expect(ran.stderr).toMatch(/shown only once/)
  })

  it("subscriptions list --all --json walks every page into one list object; without --all it keeps the page's cursor", async () => {
    const pages = (): void =>
      api.on(
        "get",
        subs,
        { json: { data: [{ ...f.subscription, id: 2 }], has_more: true, next_cursor: "c1" } },
        { json: { data: [{ ...f.subscription, id: 1 }], has_more: false, next_cursor: null } }
      )
    pages()
    const ran = await cli(["subscriptions", "list", "--all", "--json"])
    expect(JSON.parse(ran.stdout)).toEqual({ data: [{ ...f.subscription, id: 2 }, { ...f.subscription, id: 1 }], has_more: false, next_cursor: null })
    expect(api.calls.map((c) => c.query)).toEqual([{}, { after: "c1" }])
    pages()
    const one = await cli(["subscriptions", "list", "--json"])
    expect(JSON.parse(one.stdout)).toEqual({ data: [{ ...f.subscription, id: 2 }], has_more: true, next_cursor: "c1" })
  })

  it.each([["subscriptions list"], ["deliveries list"], ["messages list"], ["conversations list"], ["contacts list"]])("%s --help says what --json prints", async (name) => {
    const ran = await cli([...name.split(" "), "--help"])
    expect(ran.stdout).toContain("With --json: the API's list object {data, has_more, next_cursor}")
  })

  it("deliveries list --all --json walks every page into one document; without --all it keeps the page's cursor", async () => {
    const pages = (): void =>
      api.on(
        "get",
        dels,
        { json: { mode: "native", data: [{ ...f.delivery, id: 22 }], has_more: true, next_cursor: "ZDoyMg" } },
        { json: { mode: "native", data: [{ ...f.delivery, id: 21 }], has_more: false, next_cursor: null } }
      )
    pages()
    const all = await cli(["deliveries", "list", "--status", "failed", "--all", "--json"])
    expect(JSON.parse(all.stdout)).toMatchObject({ mode: "native", has_more: false, next_cursor: null, data: [{ id: 22 }, { id: 21 }] })
    expect(api.calls.map((c) => c.query)).toEqual([{ status: "failed" }, { status: "failed", after: "ZDoyMg" }])
    pages()
    const one = await cli(["deliveries", "list", "--json"])
    expect(JSON.parse(one.stdout)).toMatchObject({ has_more: true, next_cursor: "ZDoyMg", data: [{ id: 22 }] })
  })

  it("deliveries list shows why each last attempt failed", async () => {
    const refused = { ...f.delivery, id: 22, status: "pending", response_status: null, delivered_at: null, last_error: "connection refused (ECONNREFUSED)" }
    api.on("get", dels, { json: { mode: "native", data: [refused, { ...f.delivery, id: 21, last_error: null }], has_more: false, next_cursor: null } })
    const ran = await cli(["deliveries", "list"])
    const lines = ran.stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/\sHTTP\s+LAST ERROR\s+CREATED\s/)
    expect(lines[1]).toMatch(/^22\s+pending\s.*\s-\s+connection refused \(ECONNREFUSED\)\s+\d{4}-/)
    expect(lines[2]).toMatch(/^21\s+delivered\s.*\s200\s+-\s+\d{4}-/)
  })

  it.each([
    ["deliveries list", ["deliveries", "list"], dels, { mode: "native" }, "More deliveries: add --after ZDoyMg for the next page, or --all for every page."],
    ["deliveries list --before", ["deliveries", "list", "--before", "ZDox"], dels, { mode: "native" }, "More deliveries: add --before ZDoyMg for the next page, or --all for every page."],
    ["subscriptions list", ["subscriptions", "list"], subs, {}, "More subscriptions: add --after ZDoyMg for the next page, or --all for every page."]
  ])("%s with more rows says on stderr how to get the next page", async (_name, argv, path, extra, hint) => {
    api.on("get", path, { json: { ...extra, data: [{ ...f.delivery, ...f.subscription, id: 22 }], has_more: true, next_cursor: "ZDoyMg" } })
    const ran = await cli(argv)
    expect(ran.code).toBe(0)
    expect(ran.stderr.trim()).toBe(hint)
    expect(ran.stdout).toMatch(/^ID/)
  })

  it("sandbox inbound on a channel whose inbound is switched off says the platform dropped the message and how to switch it on", async () => {
    api.on("post", "/platform/dashboard/login", { json: { user: {} }, headers: { "set-cookie": "access_token_dev=sess123; Path=/; HttpOnly" } })
    api.on("post", "/platform/dashboard/sandbox/inbound", { status: 202, json: { message_id: "wamid.X1", inbound_enabled: false } })
    const ran = await cli(["sandbox", "inbound", "--channel", "7", "--from", "15550001111", "--text", "hi"], {
      env: { PLATFORM_DASHBOARD_EMAIL: "dev@example.com", PLATFORM_DASHBOARD_PASSWORD: "s3cret-pass" }
    })
    expect(ran.code).toBe(0)
    expect(ran.stdout).toBe("✓ Injected an inbound text message from 15550001111 on channel 7 (wamid.X1)\n")
    expect(ran.stderr).toBe(
      "Channel 7 has inbound switched off, so the platform dropped it: no message, no message.received. Switch it on with `platform channels inbound 7 --on`.\n"
    )
  })

  it("sandbox inbound signs in to the dashboard and posts the message with the session cookie", async () => {
    api.on("post", "/platform/dashboard/login", { json: { user: {} }, headers: { "set-cookie": "access_token_dev=sess123; Path=/; HttpOnly" } })
    api.on("post", "/platform/dashboard/sandbox/inbound", { json: { status: "ok" } })
    const ran = await cli(["sandbox", "inbound", "--channel", "7", "--from", "15550001111", "--text", "hi there"], {
      env: { PLATFORM_DASHBOARD_EMAIL: "dev@example.com", PLATFORM_DASHBOARD_PASSWORD: "s3cret-pass" }
    })
    expect(ran.code).toBe(0)
    expect(api.calls[0]!.body).toEqual({ email: "dev@example.com", password: "s3cret-pass" })
    expect(api.calls[0]!.headers.get("origin")).toBe("http://api.test")
    expect(api.calls[1]!.headers.get("cookie")).toContain("access_token_dev=sess123")
    expect(api.calls[1]!.body).toEqual({ channel_id: 7, from: "15550001111", text: "hi there" })
    expect(api.calls.map((c) => c.headers.get("x-api-key"))).toEqual([null, null])
  })

  it.each([
    ["a rejected dashboard login", { status: 401, json: { detail: { code: "unauthorized", message: "wrong email or password" } } }, { json: {} }, 4, /Dashboard login failed: wrong email or password/],
    ["a refused session", { json: {} }, { status: 401, json: { detail: { code: "unauthorized", message: "session expired" } } }, 4, /dashboard session was refused: 401 unauthorized: session expired/],
    ["an unknown channel", { json: {} }, { status: 404, json: { detail: { code: "not_found", message: "channel not found" } } }, 1, /Channel 7 was not found in this account/],
    ["a server without the sandbox", { json: {} }, { status: 404, json: { detail: "Not Found" } }, 1, /sandbox inbound route was not found/]
  ] as const)("sandbox inbound reports %s", async (_name, login, inbound, code, message) => {
    api.on("post", "/platform/dashboard/login", { ...login, headers: { "set-cookie": "access_token_dev=sess123; Path=/" } })
    api.on("post", "/platform/dashboard/sandbox/inbound", inbound)
    const ran = await cli(["sandbox", "inbound", "--channel", "7", "--from", "1555", "--text", "hi", "--email", "dev@example.com", "--password", "pw"])
    expect(ran.code).toBe(code)
    expect(ran.stderr).toMatch(message)
  })
})
