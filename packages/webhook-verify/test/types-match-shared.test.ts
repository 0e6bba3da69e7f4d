import type * as Shared from "@platform/shared"
import { describe, expectTypeOf, it } from "vitest"
import type * as Ours from "../src/index.js"

describe("the plain TypeScript types cannot drift from @platform/shared's schemas", () => {
  it("EVENT_TYPES lists the same twelve types in the same order as shared's EVENT_TYPES", () => {
    expectTypeOf<typeof Ours.EVENT_TYPES>().toEqualTypeOf<typeof Shared.EVENT_TYPES>()
  })

  it("EventType equals shared's EventType", () => {
    expectTypeOf<Ours.EventType>().toEqualTypeOf<Shared.EventType>()
  })

  it("MessageEventData equals shared's MessageEventData", () => {
    expectTypeOf<Ours.MessageEventData>().toEqualTypeOf<Shared.MessageEventData>()
  })

  it("ConversationEventData equals shared's ConversationEventData", () => {
    expectTypeOf<Ours.ConversationEventData>().toEqualTypeOf<Shared.ConversationEventData>()
  })

  it("ChannelEventData equals shared's ChannelEventData", () => {
    expectTypeOf<Ours.ChannelEventData>().toEqualTypeOf<Shared.ChannelEventData>()
  })

  it("TemplateStatusChangedData equals shared's TemplateStatusChangedData", () => {
    expectTypeOf<Ours.TemplateStatusChangedData>().toEqualTypeOf<Shared.TemplateStatusChangedData>()
  })

  it("UpstreamErrorEnvelope equals shared's UpstreamErrorEnvelope", () => {
    expectTypeOf<Ours.UpstreamErrorEnvelope>().toEqualTypeOf<Shared.UpstreamErrorEnvelope>()
  })

  it("Envelope (the WebhookEvent union) equals shared's Envelope", () => {
    expectTypeOf<Ours.Envelope>().toEqualTypeOf<Shared.Envelope>()
    expectTypeOf<Ours.WebhookEvent>().toEqualTypeOf<Shared.Envelope>()
  })

  it("Envelope<E> equals shared's EnvelopeOf<E> for every event type", () => {
    expectTypeOf<{ [E in Ours.EventType]: Ours.Envelope<E> }>().toEqualTypeOf<{ [E in Shared.EventType]: Shared.EnvelopeOf<E> }>()
  })

  it("EnvelopeBatch equals shared's EnvelopeBatch", () => {
    expectTypeOf<Ours.EnvelopeBatch>().toEqualTypeOf<Shared.EnvelopeBatch>()
  })

  it("UnknownWebhookEvent accepts shared's UnknownEnvelope", () => {
    expectTypeOf<Shared.UnknownEnvelope>().toMatchTypeOf<Ours.UnknownWebhookEvent>()
  })
})
