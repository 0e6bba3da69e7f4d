import { SqlClient } from "@effect/sql"
import {
  type Account,
  type Billing,
  Conflict,
  EmailTaken,
  InsufficientRole,
  type Me,
  NotFound,
  type Plan,
  PLAN_LIMITS,
  type Role,
  type Signup,
  type TeamAdd,
  type TeamMember,
  Unauthorized,
  type Usage as UsageBody,
  ValidationFailed
} from "@platform/shared"
import { Effect, Option } from "effect"
import { hashPassword, verifyPassword } from "../crypto/passwords.js"
import { lockAccount } from "./account-lock.js"
import { Usage } from "./usage.js"

interface UserRow {
  readonly id: number
  readonly email: string
  readonly name: string
  readonly created_at: Date
}

interface AccountRow {
  readonly id: number
  readonly name: string
  readonly plan: Plan
  readonly created_at: Date
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  created_at: row.created_at.toISOString()
})

const isUniqueViolation = (error: unknown) =>
  (error as { cause?: { code?: string } } | undefined)?.cause?.code === "23505"

/** Who may do what in the dashboard: owners everything, admins all but plan and owners, developers the rest. */
const canManageTeam = (role: Role) => role === "owner" || role === "admin"

/**
 * Users, developer accounts and their members; billing (plan, usage, limits).
 * Emails are matched case-insensitively (unique index on lower(email)).
 */
export class Accounts extends Effect.Service<Accounts>()("@platform/server/Accounts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const usage = yield* Usage

    const usageOf = Effect.fn("Accounts.usageOf")(function*(accountId: number) {
      const snapshot = yield* usage.snapshot(accountId)
      const [row] = yield* sql<{ n: number }>`
        select count(*)::int as n from platform_channels
        where developer_account_id = ${accountId} and status = 'connected'`.pipe(Effect.orDie)
      return { ...snapshot, channels: row?.n ?? 0 } satisfies UsageBody
    })

    const accountRow = Effect.fn("Accounts.accountRow")(function*(accountId: number) {
      const [row] = yield* sql<AccountRow>`
        select id, name, plan, created_at from developer_accounts where id = ${accountId}`.pipe(Effect.orDie)
      if (row === undefined) return yield* Effect.die(new Error(`account ${accountId} vanished`))
      return row
    })

    const me = Effect.fn("Accounts.me")(function*(userId: number, accountId: number) {
      const [user] = yield* sql<UserRow & { role: Role }>`
        select u.id, u.email, u.name, u.created_at, m.role
        from users u join account_members m on m.user_id = u.id and m.developer_account_id = ${accountId}
        where u.id = ${userId}`.pipe(Effect.orDie)
      if (user === undefined) return yield* new Unauthorized({ message: "not signed in" })
      const account = yield* accountRow(accountId)
      const accounts = yield* sql<{ id: number; name: string; role: Role }>`
        select a.id, a.name, m.role
        from account_members m join developer_accounts a on a.id = m.developer_account_id
        where m.user_id = ${userId}
        order by (m.role = 'owner') desc, m.created_at, a.id`.pipe(Effect.orDie)
      return {
        user: { id: user.id, email: user.email, name: user.name, created_at: user.created_at.toISOString() },
        account: toAccount(account),
        role: user.role,
        plan: account.plan,
        usage: yield* usageOf(accountId),
        accounts
      } satisfies Me
    })

    const signup = Effect.fn("Accounts.signup")(function*(input: Signup) {
      const passwordHash = yield* hashPassword(input.password)
      const created = yield* sql.withTransaction(Effect.gen(function*() {
        const [user] = yield* sql<{ id: number }>`
          insert into users (email, name, password_hash) values (${input.email}, ${input.name}, ${passwordHash})
          returning id`
        const [account] = yield* sql<{ id: number }>`
          insert into developer_accounts (name) values (${input.account_name ?? input.name}) returning id`
        yield* sql`
          insert into account_members (developer_account_id, user_id, role) values (${account!.id}, ${user!.id}, 'owner')`
        return { userId: user!.id, accountId: account!.id }
      })).pipe(
        Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(new EmailTaken()) : Effect.die(e))
      )
      return created
    })

    /**
     * The same 401 (and about the same time) for an unknown email, a wrong password and
     * an `accountId` the user is not a member of. Without `accountId`: the account the
     * user owns, else the one they joined first (the order of `Me.accounts`).
     */
    const login = Effect.fn("Accounts.login")(function*(email: string, password: string, accountId?: number) {
      const [row] = yield* sql<{ id: number; password_hash: string; account_id: number | null }>`
        select u.id, u.password_hash,
          (select m.developer_account_id from account_members m where m.user_id = u.id
             ${accountId === undefined ? sql`` : sql`and m.developer_account_id = ${accountId}`}
           order by (m.role = 'owner') desc, m.created_at limit 1) as account_id
        from users u where lower(u.email) = lower(${email.trim()})`.pipe(Effect.orDie)
      const ok = yield* verifyPassword(password, row?.password_hash ?? null)
      if (!ok || row === undefined || row.account_id === null) {
        return yield* new Unauthorized({ message: "invalid email or password" })
      }
      return { userId: row.id, accountId: row.account_id }
    })

    const getAccount = Effect.fn("Accounts.getAccount")(function*(accountId: number) {
      return toAccount(yield* accountRow(accountId))
    })

    const updateAccount = Effect.fn("Accounts.updateAccount")(
      function*(accountId: number, role: Role, patch: { readonly name?: string }) {
        if (!canManageTeam(role)) return yield* new InsufficientRole()
        if (patch.name !== undefined) {
          yield* sql`update developer_accounts set name = ${patch.name}, updated_at = now() where id = ${accountId}`
            .pipe(Effect.orDie)
        }
        return yield* getAccount(accountId)
      }
    )

    const billing = Effect.fn("Accounts.billing")(function*(accountId: number) {
      const account = yield* accountRow(accountId)
      return { plan: account.plan, usage: yield* usageOf(accountId), limits: PLAN_LIMITS[account.plan] } satisfies Billing
    })

    /** Owner only; a plan must have room for the channels already connected (no silent disconnects). */
    const changePlan = Effect.fn("Accounts.changePlan")(function*(accountId: number, role: Role, plan: Plan) {
      if (role !== "owner") return yield* new InsufficientRole({ message: "only the owner can change the plan" })
      // Serialized with connects by the account's lock; the channels are counted after it (see lockAccount).
      const rows = yield* sql.withTransaction(Effect.zipRight(
        lockAccount(sql, accountId),
        sql<{ id: number }>`
          update developer_accounts set plan = ${plan}, updated_at = now()
          where id = ${accountId}
            and (select count(*) from platform_channels c
                 where c.developer_account_id = ${accountId} and c.status = 'connected') <= ${PLAN_LIMITS[plan].channels}
          returning id`
      )).pipe(Effect.orDie)
      if (rows.length === 0) {
        return yield* new Conflict({
          message: `the ${plan} plan allows ${PLAN_LIMITS[plan].channels} channel(s); disconnect channels first`
        })
      }
      return yield* billing(accountId)
    })

    const team = Effect.fn("Accounts.team")(function*(accountId: number) {
      const rows = yield* sql<{ user_id: number; email: string; name: string; role: Role; created_at: Date }>`
        select u.id as user_id, u.email, u.name, m.role, m.created_at
        from account_members m join users u on u.id = m.user_id
        where m.developer_account_id = ${accountId}
        order by m.created_at, u.id`.pipe(Effect.orDie)
      return rows.map((r): TeamMember => ({ ...r, created_at: r.created_at.toISOString() }))
    })

    const addMember = Effect.fn("Accounts.addMember")(function*(accountId: number, role: Role, input: TeamAdd) {
      if (!canManageTeam(role)) return yield* new InsufficientRole()
      if (input.role === "owner" && role !== "owner") {
        return yield* new InsufficientRole({ message: "only an owner can add an owner" })
      }
      const [existing] = yield* sql<{ id: number }>`select id from users where lower(email) = lower(${input.email})`
        .pipe(Effect.orDie)
      let userId: number
      if (existing !== undefined) {
        // Another user's name and password are theirs: an admin neither renames them nor sets their password.
        const ignored = (["name", "password"] as const).filter((field) => input[field] !== undefined)
        if (ignored.length > 0) {
          return yield* new ValidationFailed({
            detail: ignored.map((field) => ({
              loc: ["body", field],
              msg: "does not apply: a user with this email already exists and keeps their own name and password; omit it",
              type: "extra_forbidden",
              input: field === "password" ? null : input[field],
              ctx: {}
            }))
          })
        }
        userId = existing.id
      } else {
        if (input.password === undefined || input.name === undefined) {
          return yield* ValidationFailed.fromIssues(
            [{ _tag: "Missing", path: [input.name === undefined ? "name" : "password"], message: "is required to create a new user" }],
            "body",
            input
          )
        }
        const passwordHash = yield* hashPassword(input.password)
        const [created] = yield* sql<{ id: number }>`
          insert into users (email, name, password_hash) values (${input.email}, ${input.name}, ${passwordHash})
          returning id`.pipe(
          Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(new EmailTaken()) : Effect.die(e))
        )
        userId = created!.id
      }
      const inserted = yield* sql<{ user_id: number }>`
        insert into account_members (developer_account_id, user_id, role) values (${accountId}, ${userId}, ${input.role})
        on conflict do nothing returning user_id`.pipe(Effect.orDie)
      if (inserted.length === 0) return yield* new EmailTaken({ message: "this user is already a member" })
      const members = yield* team(accountId)
      return members.find((m) => m.user_id === userId)!
    })

    /** Removing a member revokes their sessions on this account; the last owner stays. */
    const removeMember = Effect.fn("Accounts.removeMember")(
      function*(accountId: number, actor: { readonly role: Role; readonly user_id: number }, userId: number) {
        if (!canManageTeam(actor.role) && actor.user_id !== userId) return yield* new InsufficientRole()
        return yield* sql.withTransaction(Effect.gen(function*() {
          const owners = yield* sql<{ user_id: number; role: Role }>`
            select user_id, role from account_members where developer_account_id = ${accountId} for update`
          const target = owners.find((m) => m.user_id === userId)
          if (target === undefined) return yield* new NotFound({ message: "member not found" })
          if (target.role === "owner" && actor.role !== "owner") {
            return yield* new InsufficientRole({ message: "only an owner can remove an owner" })
          }
          if (target.role === "owner" && owners.filter((m) => m.role === "owner").length === 1) {
            return yield* new Conflict({ message: "an account keeps at least one owner" })
          }
          yield* sql`delete from account_members where developer_account_id = ${accountId} and user_id = ${userId}`
          yield* sql`
            update sessions set revoked_at = now()
            where developer_account_id = ${accountId} and user_id = ${userId} and revoked_at is null`
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      }
    )

    const findUserIdByEmail = Effect.fn("Accounts.findUserIdByEmail")(function*(email: string) {
      const [row] = yield* sql<{ id: number }>`select id from users where lower(email) = lower(${email})`.pipe(Effect.orDie)
      return Option.fromNullable(row?.id)
    })

    return {
      signup,
      login,
      me,
      getAccount,
      updateAccount,
      billing,
      changePlan,
      team,
      addMember,
      removeMember,
      findUserIdByEmail
    } as const
  }),
  dependencies: [Usage.Default]
}) {}
