import { hasEvent, startRealServer, startReceiver, within, type RealServer, type Receiver } from "@platform/test-support/real-server"
import { verify, verifyAndParse, verifyStandard } from "@platform/webhook-verify"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cli, configHome } from "./support/cli.js"

// One real server and one loopback receiver for the whole file (the helper is shared with the SDK's e2e tests).
let server: RealServer
let receiver: Receiver
beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startRealServer(), startReceiver()])
}, 120_000)
afterAll(async () => {
  await Promise.all([server?.close(), receiver?.close()])
})

const env = () => ({ PLATFORM_API_KEY: server.apiKey, PLATFORM_BASE_URL: server.baseUrl })

/** Creates a template on the channel through the API and waits (10 s at most) for the sandbox to approve it. */
const approvedTemplate = async (name: string) => {
  const headers = { "x-api-key": server.apiKey, "content-type": "application/json" }
  const body = JSON.stringify({ channel_id: server.channelId, name, language_code: "en_US", category: "utility", body_text: "Your order has shipped" })
  const created = await (await fetch(`${server.baseUrl}/platform/v1/templates`, { method: "POST", headers, body })).json() as { id: number }
  for (let i = 0; i < 100; i++) {
    const got = await (await fetch(`${server.baseUrl}/platform/v1/templates/${created.id}`, { headers })).json() as { meta_status: string }
    if (got.meta_status === "approved") return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`template ${name} was not approved within 10 s`)
}
const dashboard = () => ({ PLATFORM_DASHBOARD_EMAIL: server.email, PLATFORM_DASHBOARD_PASSWORD: server.password })
/** Runs the CLI against the real server and expects exit 0 and JSON on stdout. */
const json = async (argv: ReadonlyArray<string>): Promise<any> => {
  const ran = await cli([...argv, "--json"], { env: env() })
  expect(ran.code, ran.stderr).toBe(0)
  return JSON.parse(ran.stdout)
}
const peer = () => `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 64 }, (_, i) => i)])

let subscription: { id: number; secret: string }

describe("CLI against the real server", () => {
  it("channels list --json prints the account's channels as one JSON document", async () => {
    const channels = (await json(["channels", "list"])) as Array<{ channel_id: number; type: string }>
    expect(channels.map((c) => c.channel_id)).toContain(server.channelId)
  })

  it("channels list --type filters; channels inbound --off and --on switch the kill-switch", async () => {
    expect((await json(["channels", "list", "--type", "chat"])).map((c: { channel_id: number }) => c.channel_id)).toContain(server.channelId)
    expect(await json(["channels", "list", "--type", "social"])).toEqual([])
    expect(await json(["channels", "inbound", String(server.channelId), "--off"])).toMatchObject({ channel_id: server.channelId, inbound_enabled: false })
    const table = await cli(["channels", "list"], { env: env() })
    expect(table.stdout).toMatch(new RegExp(`\\n${server.channelId}\\s+chat\\s.*\\sactive\\s+off\\s`))
    const on = await cli(["channels", "inbound", String(server.channelId), "--on"], { env: env() })
    expect(on).toMatchObject({ code: 0, stdout: `✓ Inbound on for channel ${server.channelId}\n` })
  })

  it("channels health, profile, display-name, block, unblock and two-factor run against the sandbox", async () => {
    const id = String(server.channelId)
    expect(await json(["channels", "health", id])).toMatchObject({ channel_id: server.channelId, can_send_message: "AVAILABLE" })
    expect(await json(["channels", "profile", id, "--about", "Open 9 to 5"])).toMatchObject({ channel_id: server.channelId, about: "Open 9 to 5" })
    expect(await json(["channels", "display-name", id])).toMatchObject({ channel_id: server.channelId, name_status: "APPROVED" })
    const user = peer()
    const blocked = await cli(["channels", "block", id, user], { env: env() })
    expect(blocked.code, blocked.stderr).toBe(0)
    expect(blocked.stdout).toMatch(new RegExp(`\\n${user}\\s+blocked\\s+${user}\\n`))
    expect(await json(["channels", "unblock", id, user])).toEqual({ channel_id: server.channelId, succeeded: [{ user, wa_id: user }], failed: [] })
    async function* stdin() {
      yield "975311\n"
    }
    const pin = await cli(["channels", "two-factor", id], { env: env(), stdin: stdin() })
    expect(pin).toMatchObject({ code: 0, stdout: `✓ Two-step verification PIN set for channel ${id}\n` })
    const short = await cli(["channels", "two-factor", id, "--pin", "12345"], { env: env() })
    expect(short.code).toBe(1)
    expect(short.stderr).toContain("--pin: must be exactly 6 digits")
    expect(short.stderr).not.toContain("12345")
  })

  it("channels list prints a table", async () => {
    const ran = await cli(["channels", "list"], { env: env() })
    expect(ran.code).toBe(0)
    expect(ran.stdout).toMatch(new RegExp(`^ID\\s+TYPE[\\s\\S]*\\n${server.channelId}\\s+chat\\s`))
  })

  it("a rejected key exits 4", async () => {
    const ran = await cli(["channels", "list"], { env: { ...env(), PLATFORM_API_KEY: "pk_live_wrongwrongwrongwrongwrongwrong" } })
    expect(ran.code).toBe(4)
    expect(ran.stderr).toMatch(/401 unauthorized/)
  })

  it("subscriptions create prints the secret once; subscriptions list shows it; an invalid URL exits 1 with the 422 detail", async () => {
    const created = await json(["subscriptions", "create", "--url", receiver.url, "--description", "cli e2e"])
    expect(created).toMatchObject({ target_url: receiver.url, description: "cli e2e", is_active: true, secret: expect.stringMatching(/^whsec_/) })
    subscription = { id: created.id, secret: created.secret }
    const listed = (await json(["subscriptions", "list"])) as { data: Array<{ id: number; secret?: string }>; has_more: boolean }
    expect(listed.data.map((s) => s.id)).toEqual([subscription.id])
    expect(listed.has_more).toBe(false)
    expect(listed.data[0]!.secret).toBeUndefined()
    const table = await cli(["subscriptions", "list"], { env: env() })
    expect(table.stdout).toMatch(new RegExp(`\\n${subscription.id}\\s+http://127\\.0\\.0\\.1`))

    const invalid = await cli(["subscriptions", "create", "--url", "not a url"], { env: env() })
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/422[\s\S]*target_url/)
  })

  it("send text delivers a signed message.sent to the subscription; deliveries list --json shows it", async () => {
    const to = peer()
    const sent = await json(["send", "text", "--channel", String(server.channelId), "--to", to, "--text", "hello from the cli"])
    expect(sent).toMatchObject({ channel_id: server.channelId, type: "text", message_id: expect.stringMatching(/^wamid\./) })
    const r = await receiver.next(hasEvent("message.sent", (e) => e.data?.meta_message_id === sent.message_id), 20_000)
    expect(await verify(subscription.secret, r.body, r.headers["x-platform-signature"] as string)).toMatchObject({ ok: true })
    expect(await verifyStandard(subscription.secret, r.body, r.headers as Record<string, string>)).toMatchObject({ ok: true })

    const deliveryId = Number(r.headers["x-platform-delivery-id"])
    const page = await json(["deliveries", "list", "--subscription", String(subscription.id), "--event-type", "message.sent"])
    expect(page).toMatchObject({ mode: "native", has_more: false, next_cursor: null })
    expect(page.data.map((d: { id: number }) => d.id)).toContain(deliveryId)
    const table = await cli(["deliveries", "list", "--subscription", String(subscription.id)], { env: env() })
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(new RegExp(`\\n${deliveryId}\\s+\\S+\\s+message\\.sent`))

    const full = await within(
      (async () => {
        for (;;) {
          const d = await json(["deliveries", "get", String(deliveryId), "--full-envelope"])
          if (d.status === "delivered") return d
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      })(),
      10_000,
      "the delivery to be recorded"
    )
    expect(full).toMatchObject({ response_status: 200, envelope: { event: "message.sent", data: { meta_message_id: sent.message_id } } })
    const again = await json(["deliveries", "redeliver", String(deliveryId)])
    expect(again).toMatchObject({ event_id: full.event_id })
    await receiver.next((x) => x.headers["x-platform-delivery-id"] === String(again.id))

    // One row a page (the redelivery, then the first delivery): the first page's cursor leads to the next, older row.
    const sentRows = ["deliveries", "list", "--subscription", String(subscription.id), "--event-type", "message.sent", "--limit", "1"]
    const first = await json(sentRows)
    expect(first).toMatchObject({ has_more: true, next_cursor: expect.any(String), data: [{ id: again.id }] })
    const second = await json([...sentRows, "--after", first.next_cursor])
    expect(second).toMatchObject({ has_more: false, next_cursor: null, data: [{ id: deliveryId }] })
  }, 60_000)

  it("events tail --since replays the events after an id; --count ends it with exit 0", async () => {
    const to = peer()
    const a = await json(["send", "text", "--channel", String(server.channelId), "--to", to, "--text", "tail one"])
    const first = await receiver.next(hasEvent("message.sent", (e) => e.data?.meta_message_id === a.message_id), 20_000)
    const b = await json(["send", "text", "--channel", String(server.channelId), "--to", to, "--text", "tail two"])
    const ran = await cli(["events", "tail", "--since", first.json.id, "--events", "message.sent", "--count", "1", "--timeout", "20", "--json"], { env: env() })
    expect(ran.code, ran.stderr).toBe(0)
    const lines = ran.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(lines).toEqual([expect.objectContaining({ event: "message.sent", data: expect.objectContaining({ meta_message_id: b.message_id, text: "tail two" }) })])

    const people = await cli(["events", "tail", "--since", first.json.id, "--events", "message.sent", "--count", "1", "--timeout", "20"], { env: env() })
    expect(people.code, people.stderr).toBe(0)
    expect(people.stdout).toMatch(new RegExp(`message\\.sent\\s+ch ${server.channelId}\\s+to ${to} text "tail two"`))
  }, 60_000)

  it("listen forwards a real sandbox inbound event to a loopback receiver, signed with the printed secret", async () => {
    const local = await startReceiver()
    try {
      let ready!: () => void
      const isReady = new Promise<void>((resolve) => (ready = resolve))
      const home = configHome()
      const listening = cli(["listen", "--forward-to", local.url, "--events", "message.received", "--count", "1", "--timeout", "30"], {
        env: { ...env(), XDG_CONFIG_HOME: home },
        onStderr: (text) => text.includes("Ready!") && ready()
      })
      await within(isReady, 15_000, "listen to print Ready!")

      const from = peer()
      const injected = await cli(["sandbox", "inbound", "--channel", String(server.channelId), "--from", from, "--text", "hi from the cli", "--json"], {
        env: { ...env(), ...dashboard() }
      })
      expect(injected.code, injected.stderr).toBe(0)
      const { message_id } = JSON.parse(injected.stdout) as { message_id: string }
      expect(message_id).toMatch(/^wamid\./)

      const ran = await within(listening, 30_000, "listen to exit after one event")
      expect(ran.code, ran.stderr).toBe(0)
      const secret = /signing secret is (whsec_\S+)/.exec(ran.stderr)?.[1]
      expect(secret).toMatch(/^whsec_/)
      const [forwarded] = local.received
      expect(local.received).toHaveLength(1)
      expect(forwarded!.json).toMatchObject({ event: "message.received", platform_channel_id: server.channelId, data: { peer_id: from, text: "hi from the cli", meta_message_id: message_id } })
      const signature = forwarded!.headers["x-platform-signature"] as string
      expect(await verify(secret!, forwarded!.body, signature)).toMatchObject({ ok: true })
      expect(await verifyStandard(secret!, forwarded!.body, forwarded!.headers as Record<string, string>)).toMatchObject({ ok: true })
      expect(await verifyAndParse(secret!, forwarded!.body, signature)).toMatchObject({ ok: true, events: [{ event: "message.received" }] })
      expect(ran.stdout).toMatch(new RegExp(`--> message\\.received \\[${forwarded!.json.id}\\]`))
      expect(ran.stdout).toMatch(/<-- \[200\] POST http:\/\/127\.0\.0\.1/)

      // mark-read of the inbound message just received.
      const read = await json(["mark-read", "--channel", String(server.channelId), "--message-id", message_id])
      expect(read).toMatchObject({ message_id })

      // The conversation the message opened can be ended and re-activated.
      const conversationId = String(forwarded!.json.data.conversation_id)
      expect(await json(["conversations", "update", conversationId, "--status", "ended"])).toMatchObject({ peer_id: from, status: "ended", ended_at: expect.any(String) })
      expect(await json(["conversations", "update", conversationId, "--status", "active"])).toMatchObject({ peer_id: from, status: "active" })
    } finally {
      await local.close()
    }
  }, 60_000)

  it("sandbox inbound of an unknown channel reports it", async () => {
    const missing = await cli(["sandbox", "inbound", "--channel", "99999999", "--from", "15551234567", "--text", "x"], { env: { ...env(), ...dashboard() } })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/Channel 99999999 was not found/)
  })

  it("media upload (a file path) / url / delete; subscriptions get / update / resume / rotate-secret / test / delete", async () => {
    const dir = mkdtempSync(join(tmpdir(), "platform-cli-e2e-"))
    const file = join(dir, "cat.png")
    writeFileSync(file, PNG)
    const uploaded = await json(["media", "upload", file, "--channel", String(server.channelId)])
    expect(uploaded).toEqual({ channel_id: server.channelId, media_id: expect.any(String) })
    const link = await json(["media", "url", uploaded.media_id, "--channel", String(server.channelId)])
    expect(link).toMatchObject({ mime_type: "image/png", file_size: PNG.length })
    expect(new Uint8Array(await (await fetch(link.url)).arrayBuffer())).toEqual(PNG)
    expect(await json(["media", "delete", uploaded.media_id, "--channel", String(server.channelId)])).toEqual({ deleted: true })

    const id = String(subscription.id)
    expect(await json(["subscriptions", "get", id])).toMatchObject({ id: subscription.id, target_url: receiver.url })
    expect(await json(["subscriptions", "update", id, "--description", "renamed", "--events", "message.sent,message.received"])).toMatchObject({
      description: "renamed",
      event_types: ["message.sent", "message.received"]
    })
    expect(await json(["subscriptions", "update", id, "--buffer-window", "5", "--buffer-max-batch", "10", "--header", "X-Team: cli"])).toMatchObject({
      buffer_window_seconds: 5,
      buffer_max_batch: 10,
      custom_headers: { "X-Team": "cli" }
    })
    expect(await json(["subscriptions", "update", id, "--no-description", "--no-buffer-window", "--no-header", "--no-events"])).toMatchObject({
      description: null,
      buffer_window_seconds: null,
      buffer_max_batch: null,
      custom_headers: null,
      event_types: []
    })
    expect(await json(["subscriptions", "resume", id])).toMatchObject({ is_paused: false })
    const rotated = await json(["subscriptions", "rotate-secret", id])
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(subscription.secret)
    const tested = await json(["subscriptions", "test", id, "--event-type", "message.received"])
    const sample = await receiver.next((r) => r.headers["x-platform-delivery-id"] === String(tested.id))
    expect(await verify(rotated.secret, sample.body, sample.headers["x-platform-signature"] as string)).toMatchObject({ ok: true })
    expect(sample.json).toMatchObject({ event: "message.received", data: { _test: true } })
    expect(await json(["subscriptions", "delete", id])).toEqual({ id: subscription.id, deleted: true })
    const gone = await cli(["subscriptions", "get", id], { env: env() })
    expect(gone.code).toBe(1)
    expect(gone.stderr).toMatch(/404/)
  }, 60_000)

  it("login checks the key against the server and stores the profile", async () => {
    const home = configHome()
    const ran = await cli(["login", "--api-key", server.apiKey, "--base-url", server.baseUrl], { env: { XDG_CONFIG_HOME: home, PLATFORM_API_KEY: undefined, PLATFORM_BASE_URL: undefined } })
    expect(ran.code).toBe(0)
    const config = JSON.parse(readFileSync(join(home, "platform", "config.json"), "utf8")) as { profiles: Record<string, unknown> }
    expect(config.profiles.default).toEqual({ api_key: server.apiKey, base_url: server.baseUrl })
    const again = await cli(["channels", "list", "--json"], { env: { XDG_CONFIG_HOME: home, PLATFORM_API_KEY: undefined, PLATFORM_BASE_URL: undefined } })
    expect(again.code).toBe(0)
  })

  it("send interactive, contacts and catalog reach the sandbox as their types; send media --reply-to replies", async () => {
    const to = ["--channel", String(server.channelId), "--to", peer()]
    const sends: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["interactive", ["--interactive", '{"type":"button","body":{"text":"Pick"},"action":{"buttons":[{"type":"reply","reply":{"id":"a","title":"A"}}]}}']],
      ["contacts", ["--contacts", '[{"name":{"formatted_name":"Ann","first_name":"Ann"},"phones":[{"phone":"+15550001111"}]}]']],
      ["catalog", ["--interactive", '{"type":"catalog_message","body":{"text":"Our shop"},"action":{"name":"catalog_message"}}']]
    ]
    for (const [type, options] of sends) {
      expect(await json(["send", type, ...to, ...options])).toMatchObject({ channel_id: server.channelId, type, message_id: expect.stringMatching(/^wamid\./) })
    }
    const first = await json(["send", "text", ...to, "--text", "the original"])
    const reply = await json(["send", "media", ...to, "--type", "image", "--link", "https://example.com/a.png", "--reply-to", first.message_id])
    expect(reply).toMatchObject({ type: "image", message_id: expect.stringMatching(/^wamid\./) })
  })
  it("broadcasts: create, add-recipients from a CSV (duplicates skipped), recipients with counts, schedule, cancel, send; a second send exits 1 with 409 status_locked", async () => {
    expect((await server.dashboard("POST", "/platform/dashboard/billing/plan", { plan: "lite" })).status).toBe(200)
    // A broadcast's template must be one the channel has, approved (issue 42): the sandbox approves it a moment after the create.
    await approvedTemplate("cli_template")
    const draft = await json(["broadcasts", "create", "--name", "cli promo", "--channel", String(server.channelId), "--template", "cli_template", "--language", "en_US"])
    expect(draft).toMatchObject({ status: "draft", recipient_count: 0 })
    const [a, b] = [peer(), peer()]
    const csv = join(mkdtempSync(join(tmpdir(), "platform-e2e-")), "recipients.csv")
    writeFileSync(csv, `to\n${a}\n${b}\n${a}\n`)
    expect(await json(["broadcasts", "add-recipients", String(draft.id), "--file", csv])).toEqual({ added: 2, skipped: 1, recipient_count: 2 })
    const listed = await json(["broadcasts", "recipients", String(draft.id)])
    expect(listed.counts).toMatchObject({ pending: 2 })
    expect(listed.data.map((r: { to: string }) => r.to).sort()).toEqual([a, b].sort())
    const at = new Date(Date.now() + 3_600_000).toISOString()
    expect(await json(["broadcasts", "schedule", String(draft.id), "--at", at])).toMatchObject({ status: "scheduled" })
    expect(await json(["broadcasts", "cancel", String(draft.id)])).toMatchObject({ status: "draft" })
    expect(await json(["broadcasts", "send", String(draft.id)])).toMatchObject({ status: "sending" })
    const again = await cli(["broadcasts", "send", String(draft.id)], { env: env() })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain("409 status_locked")
    const table = await cli(["broadcasts", "list"], { env: env() })
    expect(table.stdout).toMatch(new RegExp(`\\n${draft.id}\\s+cli promo\\s+${server.channelId}\\s+cli_template \\(en_US\\)\\s+sending\\s+2\\s`))
  })
})
