import type { Template } from "@platform/sdk"
import type { Command } from "commander"
import { InvalidArgumentError, Option } from "commander"
import { readFileSync } from "node:fs"
import type { Context } from "../../context.js"
import type { Column } from "../../output.js"
import { truncate } from "../../output.js"
import { defined, json, list } from "../util.js"

/** Reads `--file <path>`: a JSON object with the request body's fields. */
export const bodyFile = (path: string): Record<string, unknown> => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (e) {
    throw new InvalidArgumentError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new InvalidArgumentError(`${path} is not valid JSON`)
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError(`${path} must hold a JSON object with the template's fields`)
  }
  return parsed as Record<string, unknown>
}

/** The body options of create and update; flags win over the same field in `--file`. */
export const bodyOptions = (cmd: Command): Command =>
  cmd
    .option("--file <path>", "JSON file with the body's fields (flags given beside it win)", bodyFile)
    .addOption(new Option("--category <category>", "template category").choices(["utility", "marketing", "authentication"]))
    .option("--body <text>", "body text with {{1}}-style placeholders (legacy shape, without --components)")
    .option("--variables <values>", "example values of the body placeholders, comma-separated, in order", list)
    .option("--components <json>", "the components array as JSON (HEADER, BODY, FOOTER, BUTTONS, CAROUSEL)", json)
    .addOption(new Option("--parameter-format <format>", "placeholder style of the components").choices(["NAMED", "POSITIONAL"]))

/** The request body of create or update from `--file` and the flags. */
export const bodyFrom = (o: Record<string, unknown>): Record<string, unknown> => ({
  ...((o.file as Record<string, unknown> | undefined) ?? {}),
  ...defined({
    category: o.category,
    body_text: o.body,
    variables: o.variables,
    components: o.components,
    parameter_format: o.parameterFormat
  })
})

/** The upstream status in colour. */
export const status = (ctx: Context, t: Template): string => {
  const s = t.meta_status ?? "-"
  return s === "approved" ? ctx.out.c.green(s) : s === "rejected" ? ctx.out.c.red(s) : s === "pending" ? ctx.out.c.yellow(s) : s
}

/** Table columns of the template list. */
export const columns = (ctx: Context): ReadonlyArray<Column<Template>> => [
  { header: "id", value: (t) => String(t.id) },
  { header: "name", value: (t) => truncate(t.name, 40) },
  { header: "language", value: (t) => t.language_code },
  { header: "category", value: (t) => t.category },
  { header: "status", value: (t) => status(ctx, t) },
  { header: "channel", value: (t) => (t.platform_channel_id === null || t.platform_channel_id === undefined ? "-" : String(t.platform_channel_id)) },
  { header: "active", value: (t) => (t.is_active ? "yes" : ctx.out.c.gray("no")) },
  { header: "created", value: (t) => t.created_at }
]

/** Prints one template. */
export const printTemplate = (ctx: Context, t: Template, verb?: string): void =>
  ctx.out.result(t, () => {
    if (verb) ctx.out.line(`${ctx.out.c.green("✓")} ${verb} template ${ctx.out.c.bold(`${t.name} (${t.language_code})`)}, id ${t.id}`)
    ctx.out.fields([
      ["id", t.id],
      ["name", t.name],
      ["language_code", t.language_code],
      ["category", t.category],
      ["status", status(ctx, t)],
      ["rejection_reason", t.meta_rejection_reason],
      ["channel", t.platform_channel_id],
      ["body_text", t.body_text],
      ["variables", t.variables.length > 0 ? t.variables.join(", ") : null],
      ["header_format", t.header_format],
      ["parameter_format", t.parameter_format],
      ["components", t.components === null || t.components === undefined ? null : `${t.components.length} (${t.components.map((c) => c.type).join(", ")})`],
      ["is_active", t.is_active],
      ["meta_template_id", t.meta_template_id],
      ["created_at", t.created_at]
    ])
  })
