import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  AccountPatch,
  ApiKeyCreate,
  ApiKeyPatch,
  BlockUsers,
  BroadcastCreate,
  BroadcastRecipientsLoad,
  BroadcastSchedule,
  ChannelProfileUpdate,
  ContactPatch,
  ConversationPatch,
  DeliveryListQuery,
  InboundSwitch,
  ListQuery,
  MediaFromUrl,
  Signup,
  TeamAdd,
  TwoFactor,
  WebhookSubscriptionCreate,
  WebhookSubscriptionPatch
} from "@platform/shared"
import { subscriptionCreate } from "./fixtures.js"
import { pathsOf } from "./helpers.js"

const url = "https://hooks.example.com/"

describe("subscription bounds", () => {
  it.each([
    ["buffer_window_seconds", 0, false],
    ["buffer_window_seconds", 1, true],
    ["buffer_window_seconds", 60, true],
    ["buffer_window_seconds", 61, false],
    ["buffer_window_seconds", 1.5, false],
    ["buffer_window_seconds", null, true],
    ["buffer_max_batch", 0, false],
    ["buffer_max_batch", 1, true],
    ["buffer_max_batch", 100, true],
    ["buffer_max_batch", 101, false],
    ["inactivity_minutes", 0, false],
    ["inactivity_minutes", 1, true],
    ["inactivity_minutes", 1440, true],
    ["inactivity_minutes", 1441, false],
    ["description", "d".repeat(200), true],
    ["description", "d".repeat(201), false],
    // Characters, not UTF-16 units: an emoji counts once.
    ["description", "😀".repeat(200), true],
    ["description", "😀".repeat(201), false],
    // null clears the description; a blank string is not a description
    ["description", null, true],
    ["description", "", false],
    ["description", " \t\n", false],
    ["description", " a ", true],
    ["target_url", "", false],
    ["target_url", url + "a".repeat(2083 - url.length), true],
    ["target_url", url + "a".repeat(2084 - url.length), false],
    ["target_url", "not a url", false],
    ["event_types", [], true],
    ["event_types", ["message.received", "template.status_changed"], true],
    ["event_types", ["message.unknown"], false],
    ["custom_headers", { "X-A": "1" }, true],
    ["custom_headers", { "X-A": 1 }, false],
    ["platform_channel_id", null, true],
    ["is_active", "yes", false]
  ])("%s = %j is accepted on create and patch: %s", (field, value, ok) => {
    for (const schema of [WebhookSubscriptionCreate, WebhookSubscriptionPatch] as ReadonlyArray<Schema.Schema<any, any>>) {
      const paths = pathsOf(schema, { ...subscriptionCreate, [field]: value })
      if (ok) expect(paths).toStrictEqual([])
      else expect(paths.map((p) => p[0])).toContain(field)
    }
  })

  it("create requires target_url, patch does not", () => {
    expect(pathsOf(WebhookSubscriptionCreate, {})).toStrictEqual([["target_url"]])
    expect(pathsOf(WebhookSubscriptionPatch, {})).toStrictEqual([])
  })
})

describe("request bodies", () => {
  it.each([
    ["ContactPatch display_name of 255 chars", ContactPatch, { display_name: "n".repeat(255) }, null],
    ["ContactPatch display_name of 256 chars", ContactPatch, { display_name: "n".repeat(256) }, ["display_name"]],
    ["ContactPatch display_name of 255 emoji", ContactPatch, { display_name: "😀".repeat(255) }, null],
    ["ContactPatch open contact_metadata", ContactPatch, { contact_metadata: { any: { deep: [1] } } }, null],
    ["ContactPatch unknown field", ContactPatch, { phone: "1" }, ["phone"]],
    ["ConversationPatch status archived", ConversationPatch, { status: "archived" }, ["status"]],
    ["ConversationPatch without status", ConversationPatch, {}, ["status"]],
    ["profile about of 140 chars", ChannelProfileUpdate, { about: "a".repeat(140) }, ["about"]],
    ["profile about of 139 emoji", ChannelProfileUpdate, { about: "😀".repeat(139) }, null],
    ["profile address of 257 chars", ChannelProfileUpdate, { address: "a".repeat(257) }, ["address"]],
    ["profile description of 257 chars", ChannelProfileUpdate, { description: "a".repeat(257) }, ["description"]],
    ["profile email of 129 chars", ChannelProfileUpdate, { email: "a".repeat(129) }, ["email"]],
    ["profile with 3 websites", ChannelProfileUpdate, { websites: ["a", "b", "c"] }, ["websites"]],
    ["profile empty (nothing to change)", ChannelProfileUpdate, {}, null],
    ["profile unknown field", ChannelProfileUpdate, { phone: "1" }, ["phone"]],
    ["block-users with no users", BlockUsers, { users: [] }, ["users"]],
    ["block-users with 1000 users", BlockUsers, { users: Array.from({ length: 1000 }, (_, i) => `${i}`) }, null],
    ["block-users with 1001 users", BlockUsers, { users: Array.from({ length: 1001 }, (_, i) => `${i}`) }, ["users"]],
    ["block-users with a blank user", BlockUsers, { users: ["15551230001", "  "] }, ["users", 1]],
    ["two-factor pin of 5 digits", TwoFactor, { pin: "12345" }, ["pin"]],
    ["two-factor pin of 7 digits", TwoFactor, { pin: "1234567" }, ["pin"]],
    ["two-factor pin with letters", TwoFactor, { pin: "12a456" }, ["pin"]],
    ["two-factor pin as a number", TwoFactor, { pin: 123456 }, ["pin"]],
    ["inbound without enabled", InboundSwitch, {}, ["enabled"]],
    ["recipients load of 0", BroadcastRecipientsLoad, { recipients: [] }, ["recipients"]],
    ["recipients load of 1001", BroadcastRecipientsLoad, { recipients: Array.from({ length: 1001 }, () => ({ to: "1" })) }, [
      "recipients"
    ]],
    ["schedule with a date only", BroadcastSchedule, { scheduled_at: "2024-05-01" }, ["scheduled_at"]],
    ["schedule on 30 February", BroadcastSchedule, { scheduled_at: "2026-02-30T10:00:00Z" }, ["scheduled_at"]],
    ["schedule on 29 February of a common year", BroadcastSchedule, { scheduled_at: "2100-02-29T10:00:00Z" }, ["scheduled_at"]],
    ["schedule on 31 April", BroadcastSchedule, { scheduled_at: "2026-04-31T10:00:00+02:00" }, ["scheduled_at"]],
    ["schedule on 29 February of a leap year", BroadcastSchedule, { scheduled_at: "2028-02-29T10:00:00Z" }, null],
    ["schedule on 29 February 2000", BroadcastSchedule, { scheduled_at: "2000-02-29T10:00:00Z" }, null],
    ["schedule on 31 December", BroadcastSchedule, { scheduled_at: "2026-12-31T23:59:59.999Z" }, null],
    ["schedule with a local time without zone", BroadcastSchedule, { scheduled_at: "2024-05-01T10:00:00" }, ["scheduled_at"]],
    ["media from url without mime_type", MediaFromUrl, { channel_id: 1, url: "https://x" }, ["mime_type"]],
    ["api key with an unknown scope", ApiKeyCreate, { name: "k", scopes: ["admin"] }, ["scopes", 0]],
    ["api key with rate limit 0", ApiKeyCreate, { name: "k", rate_limit_per_minute: 0 }, ["rate_limit_per_minute"]],
    ["api key with rate limit above 1,000,000,000", ApiKeyCreate, { name: "k", rate_limit_per_minute: 1_000_000_001 }, [
      "rate_limit_per_minute"
    ]],
    ["api key PATCH with rate limit above 1,000,000,000", ApiKeyPatch, { rate_limit_per_minute: 2 ** 31 }, ["rate_limit_per_minute"]],
    ["api key without name", ApiKeyCreate, {}, ["name"]],
    ["api key name of 200 emoji", ApiKeyCreate, { name: "🔑".repeat(200) }, null],
    ["signup name and account name of 200 emoji", Signup, {
      email: "a@example.com",
      password: "password",
      name: "😀".repeat(200),
      account_name: "🏢".repeat(200)
    }, null],
    ["signup name of 201 chars", Signup, { email: "a@example.com", password: "password", name: "n".repeat(201) }, ["name"]],
    ["account name of 200 emoji", AccountPatch, { name: "🏢".repeat(200) }, null],
    ["api key name of 201 chars", ApiKeyCreate, { name: "k".repeat(201) }, ["name"]],
    ["api key PATCH name of 201 chars", ApiKeyPatch, { name: "k".repeat(201) }, ["name"]],
    // A name needs a character that is not whitespace.
    ["api key name of spaces", ApiKeyCreate, { name: "   " }, ["name"]],
    ["api key PATCH name empty", ApiKeyPatch, { name: "" }, ["name"]],
    ["signup name of a tab and an ideographic space", Signup, { email: "a@example.com", password: "password", name: "\t\u3000" }, ["name"]],
    ["signup account name of newlines", Signup, { email: "a@example.com", password: "password", name: "Ada", account_name: "\n\n" }, [
      "account_name"
    ]],
    ["account name of spaces", AccountPatch, { name: "  " }, ["name"]],
    ["team member name of spaces", TeamAdd, { email: "a@example.com", role: "developer", name: " ", password: "password" }, ["name"]],
    ["broadcast name of spaces", BroadcastCreate, { name: "  ", channel_id: 1, template_name: "t", language_code: "en" }, ["name"]],
    ["a name with spaces around a character", AccountPatch, { name: " A " }, null]
  ])("%s", (_name, schema, input, path) => {
    const paths = pathsOf(schema as Schema.Schema<unknown, unknown>, input)
    if (path === null) expect(paths).toStrictEqual([])
    else expect(paths).toContainEqual(path)
  })
})

describe("list query", () => {
  it.each([
    [{}, 50],
    [{ limit: "1" }, 1],
    [{ limit: "200" }, 200]
  ])("%j decodes limit to %i", (query, limit) => {
    expect(Schema.decodeUnknownSync(ListQuery)(query).limit).toBe(limit)
  })

  it.each(["0", "201", "2.5", "ten"])("limit %s is rejected", (limit) => {
    expect(new Set(pathsOf(ListQuery, { limit }).map((p) => p.join(".")))).toStrictEqual(new Set(["limit"]))
  })

  it("deliveries default to mode native and decode errors_only from a string", () => {
    expect(Schema.decodeUnknownSync(DeliveryListQuery)({ errors_only: "true" })).toStrictEqual({
      limit: 50,
      mode: "native",
      errors_only: true
    })
    expect(new Set(pathsOf(DeliveryListQuery, { mode: "raw" }).map((p) => p.join(".")))).toStrictEqual(new Set(["mode"]))
  })
})
