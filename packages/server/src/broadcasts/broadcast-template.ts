import type { SqlClient } from "@effect/sql"
import { type BroadcastCreate, TemplateUnusable } from "@platform/shared"
import { Effect } from "effect"
import type { UsableChannel } from "../channels/channel-credentials.js"
import type { Messages } from "../messages/messages.js"
import type { StoredTemplate } from "../templates/template-parameters.js"
import { checkTemplateParameters } from "../templates/template-parameters.js"

type RuntimeComponents = NonNullable<BroadcastCreate["components"]>

/** How many recipients without parameters a refusal names (their count is always given). */
const NAMED_RECIPIENTS = 10

const approved = (status: string | null) => status?.toLowerCase() === "approved"

/**
 * The broadcast's template as the channel has it, approved: a template the channel does not
 * have, or one Meta has not approved, would fail every recipient at send time, so create,
 * schedule and send refuse it with 422 template_unusable.
 */
export const usableTemplate = (
  messages: Messages,
  channel: Pick<UsableChannel, "id" | "account_id">,
  name: string,
  language: string
): Effect.Effect<StoredTemplate, TemplateUnusable> =>
  Effect.flatMap(messages.templateStanding(channel, name, language), ({ template }) => {
    if (template === undefined) {
      return Effect.fail(
        new TemplateUnusable({
          reason: "not_found",
          template_name: name,
          language_code: language,
          message: `channel ${channel.id} has no template ${name} in ${language}: create it with POST /platform/v1/templates, ` +
            `or run POST /platform/v1/templates/sync if it was made in WhatsApp Manager`
        })
      )
    }
    if (!approved(template.meta_status)) {
      return Effect.fail(
        new TemplateUnusable({
          reason: "not_approved",
          template_name: name,
          language_code: language,
          meta_status: template.meta_status,
          message: `template ${name} in ${language} is ${template.meta_status ?? "not submitted"}, not approved: ` +
            `Meta sends approved templates only`
        })
      )
    }
    return Effect.succeed(template)
  })

/**
 * Every pending recipient's components (its own, else the draft's) fill the template: the
 * recipients are grouped by their components, so a broadcast of one default is one check.
 */
export const recipientsFillTemplate = (
  sql: SqlClient.SqlClient,
  broadcast: { readonly id: number; readonly template_name: string; readonly language_code: string },
  template: StoredTemplate
) =>
  Effect.gen(function*() {
    const groups = yield* sql<{ components: RuntimeComponents | null; n: number; tos: ReadonlyArray<string> }>`
      select coalesce(r.components, b.components) as components, count(*)::int as n,
        (array_agg(r."to" order by r.id))[1:${sql.literal(String(NAMED_RECIPIENTS))}] as tos
      from broadcast_recipients r join broadcasts b on b.id = r.broadcast_id
      where r.broadcast_id = ${broadcast.id} and r.status = 'pending'
      group by 1`.pipe(Effect.orDie)
    const unfilled = groups
      .map((g) => ({ ...g, issues: checkTemplateParameters(template, g.components ?? undefined) }))
      .filter((g) => g.issues.length > 0)
    if (unfilled.length === 0) return
    const recipients = unfilled.flatMap((g) => g.tos).slice(0, NAMED_RECIPIENTS)
    const missing = [...new Set(unfilled.flatMap((g) => g.issues.map((i) => i.msg)))]
    const count = unfilled.reduce((n, g) => n + g.n, 0)
    return yield* new TemplateUnusable({
      reason: "parameters_missing",
      template_name: broadcast.template_name,
      language_code: broadcast.language_code,
      recipients_missing: count,
      recipients,
      missing,
      message: `${count} recipient(s) would be sent template ${broadcast.template_name} without the parameters it needs ` +
        `(${missing.join("; ")}): give the draft components, or the recipients their own`
    })
  })
