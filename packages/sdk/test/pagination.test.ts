import * as f from "@platform/test-support/fixtures"
import { BASE_URL, mockApi } from "@platform/test-support/mock-api"
import { describe, expect, it } from "vitest"
import { NoNextPageError, Platform, PlatformError } from "../src/index.js"

const api = mockApi()
const client = () => new Platform({ apiKey: "pk_test_key", baseUrl: BASE_URL, maxRetries: 0 })
const sub = (id: number) => ({ ...f.subscription, id })
const threePages = () =>
  api.on(
    "get",
    "/platform/v1/webhooks/subscriptions",
    { json: { data: [sub(6), sub(5)], has_more: true, next_cursor: "c1" } },
    { json: { data: [sub(4), sub(3)], has_more: true, next_cursor: "c2" } },
    { json: { data: [sub(2), sub(1)], has_more: false, next_cursor: null } }
  )

describe("PagePromise", () => {
  it("for await walks every item across three pages, passing each next_cursor as after", async () => {
    threePages()
    const ids: number[] = []
    for await (const s of client().webhooks.subscriptions.list({ limit: 2 })) ids.push(s.id)
    expect(ids).toEqual([6, 5, 4, 3, 2, 1])
    expect(api.calls.map((c) => c.query)).toEqual([{ limit: "2" }, { limit: "2", after: "c1" }, { limit: "2", after: "c2" }])
  })

  it("for await over messages.list walks the stored history across pages, keeping the filters", async () => {
    const msg = (id: number) => ({ ...f.message, id })
    api.on(
      "get",
      "/platform/v1/messages",
      { json: { data: [msg(3), msg(2)], has_more: true, next_cursor: "m1" } },
      { json: { data: [msg(1)], has_more: false, next_cursor: null } }
    )
    const ids: number[] = []
    for await (const m of client().messages.list({ contact_id: 41, limit: 2 })) ids.push(m.id)
    expect(ids).toEqual([3, 2, 1])
    expect(api.calls.map((c) => c.query)).toEqual([{ contact_id: "41", limit: "2" }, { contact_id: "41", limit: "2", after: "m1" }])
  })

  it("await gives the first page only, and getNextPage fetches the next", async () => {
    threePages()
    const first = await client().webhooks.subscriptions.list({ limit: 2 })
    expect(first.data.map((s) => s.id)).toEqual([6, 5])
    expect([first.has_more, first.next_cursor, first.hasNextPage()]).toEqual([true, "c1", true])
    expect(api.calls).toHaveLength(1)
    const second = await first.getNextPage()
    expect(second.data.map((s) => s.id)).toEqual([4, 3])
  })

  it("getNextPage on the last page throws NoNextPageError, a PlatformError, without a request", async () => {
    api.on("get", "/platform/v1/webhooks/subscriptions", { json: { data: [sub(1)], has_more: false, next_cursor: null } })
    const last = await client().webhooks.subscriptions.list()
    const error = await last.getNextPage().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NoNextPageError)
    expect(error).toBeInstanceOf(PlatformError)
    expect(error).toMatchObject({ name: "NoNextPageError", message: expect.stringMatching(/hasNextPage\(\)/) })
    expect(api.calls).toHaveLength(1)
  })

  it("iterPages yields each page once and stops when has_more is false", async () => {
    threePages()
    const first = await client().webhooks.subscriptions.list()
    const sizes: number[] = []
    for await (const p of first.iterPages()) sizes.push(p.data.length)
    expect(sizes).toEqual([2, 2, 2])
    expect(api.calls).toHaveLength(3)
  })

  it("deliveries keep mode and filters on every page", async () => {
    api.on(
      "get",
      "/platform/v1/webhooks/deliveries",
      { json: { mode: "native", data: [f.delivery], has_more: true, next_cursor: "d1" } },
      { json: { mode: "native", data: [{ ...f.delivery, id: 20 }], has_more: false, next_cursor: null } }
    )
    const ids: number[] = []
    for await (const d of client().webhooks.deliveries.list({ subscription_id: 11 })) ids.push(d.id)
    expect(ids).toEqual([21, 20])
    expect(api.calls.map((c) => c.query)).toEqual([{ subscription_id: "11" }, { subscription_id: "11", after: "d1" }])
  })

  it("a list asked with before only pages on towards newer rows: each next_cursor goes back as before", async () => {
    threePages()
    const ids: number[] = []
    for await (const s of client().webhooks.subscriptions.list({ limit: 2, before: "c0" })) ids.push(s.id)
    expect(ids).toEqual([6, 5, 4, 3, 2, 1])
    expect(api.calls.map((c) => c.query)).toEqual([
      { limit: "2", before: "c0" },
      { limit: "2", before: "c1" },
      { limit: "2", before: "c2" }
    ])
  })

  it("a list asked with after and before keeps before as the bound and pages on with after", async () => {
    threePages()
    const first = await client().webhooks.subscriptions.list({ after: "a0", before: "b0" })
    await first.getNextPage()
    expect(api.calls.map((c) => c.query)).toEqual([
      { after: "a0", before: "b0" },
      { after: "c1", before: "b0" }
    ])
  })

  it("a list is not requested until it is awaited or iterated", async () => {
    threePages()
    const pending = client().webhooks.subscriptions.list()
    await new Promise((r) => setTimeout(r, 10))
    expect(api.calls).toHaveLength(0)
    await pending
    expect(api.calls).toHaveLength(1)
  })
})
