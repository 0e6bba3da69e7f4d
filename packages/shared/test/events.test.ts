import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  AnyEnvelope,
  DeliveryBody,
  Envelope,
  EnvelopeBatch,
  type EnvelopeOf,
  type EventData,
  EventType,
  EVENT_TYPES,
  Scope,
  Scopes
} from "@platform/shared"
import * as F from "./fixtures.js"
import { pathsOf } from "./helpers.js"

describe("event vocabulary", () => {
  it("has the 12 event types and 11 scopes of v1", () => {
    expect(EVENT_TYPES).toHaveLength(12)
    expect(Scopes).toHaveLength(11)
    expect(Schema.is(EventType)("message.echo")).toBe(true)
    expect(Schema.is(Scope)("read:channels")).toBe(true)
    expect(Schema.is(Scope)("admin")).toBe(false)
  })
})

describe("Envelope", () => {
  const sent = F.envelope("message.sent", F.messageData)

  it.each([
    ["an id that is not evt_ + 32 hex", { ...sent, id: "evt_123" }, ["id"]],
    ["an uppercase hex id", { ...sent, id: F.evtId.toUpperCase().replace("EVT", "evt") }, ["id"]],
    ["another api_version", { ...sent, api_version: "platform-v2" }, ["api_version"]],
    ["an unknown event type", { ...sent, event: "message.exploded" }, ["event"]],
    ["message data without peer_id", F.envelope("message.sent", { ...F.messageData, peer_id: undefined }), ["data", "peer_id"]],
    ["conversation data with a bad status", F.envelope("conversation.ended", { ...F.conversationData, status: "closed" }), [
      "data",
      "status"
    ]],
    ["channel data with more than the identifier suffix", F.envelope("channel.connected", {
      ...F.channelData,
      meta_identifier_suffix: "123456789"
    }), ["data", "meta_identifier_suffix"]],
    ["a non-UTC-style timestamp", { ...sent, occurred_at: "yesterday" }, ["occurred_at"]]
  ])("rejects %s", (_name, input, path) => {
    expect(pathsOf(Envelope, input)).toContainEqual(path)
  })

  it("accepts a null platform_channel_id (account-level event)", () => {
    expect(pathsOf(Envelope, { ...F.envelope("template.status_changed", F.templateData), platform_channel_id: null })).toStrictEqual([])
  })

  it("narrows data by event type", () => {
    const decoded = Schema.decodeUnknownSync(Envelope)(F.envelope("template.status_changed", F.templateData))
    if (decoded.event === "template.status_changed") {
      const data: EventData<"template.status_changed"> = decoded.data
      expect(data.previous_status).toBe("pending")
    } else {
      throw new Error("expected template.status_changed")
    }
    const typed: EnvelopeOf<"channel.connected">["data"]["channel_type"] = "social"
    expect(typed).toBe("social")
  })

  it("tells a batch from a single envelope by the events key", () => {
    const batch = Schema.decodeUnknownSync(DeliveryBody)({ events: [F.envelope("message.read", F.messageData)] })
    expect("events" in batch).toBe(true)
    expect(pathsOf(EnvelopeBatch, { events: [{ nope: 1 }] })[0]?.slice(0, 2)).toStrictEqual(["events", 0])
  })

  it("accepts envelopes of future event types only through AnyEnvelope", () => {
    const future = F.envelope("payment.captured", { amount: 1 })
    expect(pathsOf(Envelope, future)).not.toStrictEqual([])
    expect(pathsOf(AnyEnvelope, future)).toStrictEqual([])
  })
})
