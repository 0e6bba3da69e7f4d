import { SqlClient } from "@effect/sql"
import { type DashboardSession, type Role, SESSION_TTL_DAYS } from "@platform/shared"
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { randomToken } from "../crypto/api-key-format.js"
import { Secrets } from "../crypto/secrets.js"

const TTL_MS = SESSION_TTL_DAYS * 24 * 60 * 60 * 1000

// The row id is a hash of the token's random part: a leaked sessions table does not hand out sessions.
const rowId = (sid: string) => createHash("sha256").update(sid).digest("hex")

/**
 * Dashboard sessions: a server-side row (so logout and removal from a team revoke at
 * once) named by a signed, expiring token `<sid>.<expires_ms>.<hmac>` carried in the
 * `access_token_dev` cookie. A token is checked by signature and expiry before any query.
 */
export class Sessions extends Effect.Service<Sessions>()("@platform/server/Sessions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets

    const create = Effect.fn("Sessions.create")(function*(userId: number, accountId: number) {
      const sid = randomToken(32)
      const expires = Date.now() + TTL_MS
      yield* sql`
        insert into sessions (id, user_id, developer_account_id, expires_at)
        values (${rowId(sid)}, ${userId}, ${accountId}, ${new Date(expires)})`.pipe(Effect.orDie)
      const payload = `${sid}.${expires}`
      return { token: `${payload}.${secrets.sign(payload)}`, expires: new Date(expires) }
    })

    const parse = (token: string): Option.Option<string> => {
      const parts = token.split(".")
      if (parts.length !== 3) return Option.none()
      const [sid, expires, signature] = parts as [string, string, string]
      if (!secrets.verify(`${sid}.${expires}`, signature)) return Option.none()
      if (!(Number(expires) > Date.now())) return Option.none()
      return Option.some(sid)
    }

    /** The live session of a token, with the user's current role; none when invalid, expired or revoked. */
    const resolve = Effect.fn("Sessions.resolve")(function*(token: string) {
      const sid = parse(token)
      if (Option.isNone(sid)) return Option.none<DashboardSession>()
      const id = rowId(sid.value)
      const rows = yield* sql<{ user_id: number; developer_account_id: number; role: Role }>`
        select s.user_id, s.developer_account_id, m.role
        from sessions s
        join account_members m on m.developer_account_id = s.developer_account_id and m.user_id = s.user_id
        where s.id = ${id} and s.revoked_at is null and s.expires_at > now()`.pipe(Effect.orDie)
      const row = rows[0]
      return row === undefined
        ? Option.none<DashboardSession>()
        : Option.some<DashboardSession>({
          session_id: id,
          user_id: row.user_id,
          account_id: row.developer_account_id,
          role: row.role
        })
    })

    const revoke = Effect.fn("Sessions.revoke")(function*(sessionId: string) {
      yield* sql`update sessions set revoked_at = now() where id = ${sessionId} and revoked_at is null`.pipe(Effect.orDie)
    })

    return { create, resolve, revoke } as const
  }),
  dependencies: [Secrets.Default]
}) {}
