import { createHash } from "node:crypto"
import { jsonbRows } from "../db/jsonb-rows.js"
import type { InboundPlan } from "./plan.js"
import { buildStatement } from "./statement.js"

const PARAMETERS = ["now", "period", "messages", "statuses", "templates", "qualities", "forwards", "inline", "holder", "traces"] as const
type Parameter = typeof PARAMETERS[number]

/**
 * Numbers the `:name` placeholders of a statement in order of first use and
 * lists the parameters it uses (Postgres refuses a parameter it never sees).
 */
const bind = (statement: string) => {
  const names: Array<Parameter> = []
  const known = new Set<string>(PARAMETERS)
  const text = statement.replace(/(?<!:):([a-z]+)\b/g, (whole, name: string) => {
    if (!known.has(name)) return whole
    let n = names.indexOf(name as Parameter)
    if (n < 0) n = names.push(name as Parameter) - 1
    return `$${n + 1}`
  })
  return { text, names }
}

/** A statement ready to run: its text with numbered placeholders, its parameters, and a stable name. */
export interface PreparedStatement {
  readonly name: string
  readonly text: string
  readonly names: ReadonlyArray<Parameter>
}

/*
 * The statement's text depends only on which kinds of rows the POST carries and
 * on whether it consumes quota exactly, so there are at most 64 of them; each is
 * built once and runs as a NAMED prepared
 * statement (planned once per connection instead of on every POST: planning
 * this statement costs several times its execution).
 */
const statements = new Map<string, PreparedStatement>()
export const statementFor = (plan: InboundPlan, exact: boolean): PreparedStatement => {
  const key = [plan.messages, plan.statuses, plan.templates, plan.qualities, plan.forwards]
    .map((rows) => (rows.length > 0 ? "1" : "0")).join("") + (exact ? "e" : "b")
  let prepared = statements.get(key)
  if (prepared === undefined) {
    const { names, text } = bind(buildStatement(plan, exact))
    const hash = createHash("sha1").update(text).digest("hex").slice(0, 12)
    prepared = { name: `inbound_${key}_${hash}`, text, names }
    statements.set(key, prepared)
  }
  return prepared
}

/** The statement's parameters in the order its placeholders number them: each row set travels as one jsonb text. */
export const paramsOf = (
  statement: PreparedStatement,
  plan: InboundPlan,
  now: Date,
  period: string,
  inline: boolean,
  traces: ReadonlyArray<string | undefined> = [],
  holder: number | null = null
): ReadonlyArray<unknown> => {
  const values: Record<Parameter, () => unknown> = {
    now: () => now.toISOString(),
    period: () => period,
    messages: () => jsonbRows(plan.messages),
    statuses: () => jsonbRows(plan.statuses),
    templates: () => jsonbRows(plan.templates),
    qualities: () => jsonbRows(plan.qualities),
    forwards: () => jsonbRows(plan.forwards),
    inline: () => inline,
    // The process that sends the rows written leased (inline): their holder (delivery/holder.ts).
    holder: () => holder,
    // The `traceparent` of each POST (by its index `p`); null without tracing.
    traces: () => traces.some((t) => t !== undefined) ? JSON.stringify(traces.map((t) => t ?? null)) : null
  }
  return statement.names.map((name) => values[name]())
}

export const json = <A>(v: A | string): A => (typeof v === "string" ? (JSON.parse(v) as A) : v)

/** bytea inside jsonb comes back as `\x<hex>`. */
export const byteaOf = (hex: string | null): Uint8Array | null =>
  hex === null ? null : new Uint8Array(Buffer.from(hex.replace(/^\\x/, ""), "hex"))
