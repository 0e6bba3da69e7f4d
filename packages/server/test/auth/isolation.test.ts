import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AuthTestServer, connectChat, createKey, type Dev, request, signup, uniqueEmail } from "./support.js"

const D = "/platform/dashboard"

/** What account A owns, and the same-shaped ids that do not exist at all. */
const setup = Effect.gen(function*() {
  const a = yield* signup("a")
  const b = yield* signup("b")
  const aKey = yield* createKey(a)
  const bKey = yield* createKey(b)
  const aChannel = (yield* connectChat(a)).body.channel_id as number
  const aMember = yield* request("POST", `${D}/team`, {
    cookie: a.cookie,
    body: { email: uniqueEmail("amember"), role: "developer", name: "A member", password: "member password" }
  })
  return { a, b, aKey, bKey, aChannel, aMemberId: aMember.body.user_id as number }
})

const ABSENT = 987654

layer(AuthTestServer(), { timeout: 60_000 })("cross-account isolation", (it) => {
  it.effect("account B sees none of A's keys, channels or members in its lists", () =>
    Effect.gen(function*() {
      const { aKey, aChannel, aMemberId, b, bKey } = yield* setup
      const keys = yield* request("GET", `${D}/api-keys`, { cookie: b.cookie })
      expect(keys.body.map((k: { id: number }) => k.id)).toEqual([bKey.id])
      expect(keys.body.map((k: { id: number }) => k.id)).not.toContain(aKey.id)
      const channels = yield* request("GET", `${D}/channels`, { cookie: b.cookie })
      expect(channels.body).toEqual([])
      const v1 = yield* request("GET", "/platform/v1/channels", { key: bKey.key })
      expect(v1.body).toEqual([])
      expect(v1.text).not.toContain(`"channel_id":${aChannel}`)
      const team = yield* request("GET", `${D}/team`, { cookie: b.cookie })
      expect(team.body.map((m: { user_id: number }) => m.user_id)).toEqual([b.userId])
      expect(team.body.map((m: { user_id: number }) => m.user_id)).not.toContain(aMemberId)
    }))

  it.effect("every attempt by B on A's ids is the same 404 as on an id that does not exist, and changes nothing", () =>
    Effect.gen(function*() {
      const { a, aChannel, aKey, aMemberId, b, bKey } = yield* setup
      type Ids = { readonly key: number; readonly channel: number; readonly member: number }
      const attempts: ReadonlyArray<(id: Ids) => ReturnType<typeof request>> = [
        ({ key }) => request("PATCH", `${D}/api-keys/${key}`, { cookie: b.cookie, body: { is_active: false } }),
        ({ key }) => request("DELETE", `${D}/api-keys/${key}`, { cookie: b.cookie }),
        ({ channel }) => request("DELETE", `${D}/channels/${channel}`, { cookie: b.cookie }),
        ({ channel }) => request("PATCH", `${D}/channels/${channel}/webhook`, { cookie: b.cookie, body: { webhook_url: null } }),
        ({ channel }) => request("PATCH", `/platform/v1/channels/${channel}/inbound`, { key: bKey.key, body: { enabled: false } }),
        ({ channel }) => request("PATCH", `/platform/v1/channels/${channel}/inbound`, { cookie: b.cookie, body: { enabled: false } }),
        ({ member }) => request("DELETE", `${D}/team/${member}`, { cookie: b.cookie })
      ]
      for (const attempt of attempts) {
        const foreign = yield* attempt({ key: aKey.id, channel: aChannel, member: aMemberId })
        const absent = yield* attempt({ key: ABSENT, channel: ABSENT, member: ABSENT })
        expect(foreign.status).toBe(404)
        expect(foreign.text).toBe(absent.text)
      }
      expect((yield* request("GET", "/platform/v1/channels", { key: aKey.key })).body).toMatchObject([
        { channel_id: aChannel, status: "active", inbound_enabled: true }
      ])
      const team = yield* request("GET", `${D}/team`, { cookie: a.cookie })
      expect(team.body.map((m: { user_id: number }) => m.user_id)).toContain(aMemberId)
    }))

  it.effect("a key authenticates only its own account: A's key lists A's channels, B's key lists B's", () =>
    Effect.gen(function*() {
      const { a, aKey, b, bKey } = yield* setup
      const bChannel = (yield* connectChat(b as Dev)).body.channel_id
      const listA = yield* request("GET", "/platform/v1/channels", { key: aKey.key })
      const listB = yield* request("GET", "/platform/v1/channels", { key: bKey.key })
      expect(listB.body.map((c: { channel_id: number }) => c.channel_id)).toEqual([bChannel])
      expect(listA.body.map((c: { channel_id: number }) => c.channel_id)).not.toContain(bChannel)
      expect(a.accountId).not.toBe(b.accountId)
    }))
})
