import { InvalidArgumentError } from "commander"
import type { Context } from "../../context.js"
import type { Column } from "../../output.js"

/** An API key as the dashboard lists it (never its plaintext). */
export interface ApiKey {
  readonly id: number
  readonly name: string
  readonly prefix: string
  readonly scopes: ReadonlyArray<string>
  readonly is_active: boolean
  readonly expires_at: string | null
  readonly last_used_at: string | null
  readonly rate_limit_per_minute: number
  readonly created_at: string
}

export const KEYS_PATH = "/platform/dashboard/api-keys"

/** The number of scopes a v1 key can hold (SPEC §5.3); a key with all of them reads "all". */
const ALL_SCOPES = 11

const scopeText = (k: ApiKey) => (k.scopes.length >= ALL_SCOPES ? "all" : k.scopes.join(","))

export const keyColumns = (ctx: Context): ReadonlyArray<Column<ApiKey>> => [
  { header: "id", value: (k) => String(k.id) },
  { header: "name", value: (k) => k.name },
  { header: "prefix", value: (k) => `${k.prefix}…` },
  { header: "active", value: (k) => (k.is_active ? ctx.out.c.green("yes") : ctx.out.c.red("no")) },
  { header: "rate/min", value: (k) => String(k.rate_limit_per_minute) },
  { header: "expires", value: (k) => k.expires_at ?? "-" },
  { header: "last used", value: (k) => k.last_used_at ?? "-" },
  { header: "scopes", value: scopeText }
]

/** Prints one key's fields. */
export const printKey = (ctx: Context, k: ApiKey): void =>
  ctx.out.fields([
    ["id", k.id],
    ["name", k.name],
    ["prefix", `${k.prefix}…`],
    ["active", k.is_active ? "yes" : "no"],
    ["rate limit", `${k.rate_limit_per_minute} requests/min`],
    ["expires", k.expires_at],
    ["last used", k.last_used_at],
    ["scopes", scopeText(k)]
  ])

/** Parses `--expires-at`: an ISO 8601 time, or a span from now such as `30d`, `12h`, `90m`. */
export const expiry = (value: string): string => {
  const span = /^(\d+)([dhm])$/.exec(value.trim())
  if (span) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[span[2] as "d" | "h" | "m"]
    return new Date(Date.now() + Number(span[1]) * unit).toISOString()
  }
  const at = Date.parse(value)
  if (!Number.isFinite(at)) throw new InvalidArgumentError("must be an ISO 8601 time (2026-01-31T00:00:00Z) or a span such as 30d, 12h, 90m")
  return new Date(at).toISOString()
}
