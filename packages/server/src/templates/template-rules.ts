import {
  type CardComponent,
  ChannelUnusable,
  type TemplateComponent,
  UpstreamFailure,
  ValidationFailed
} from "@platform/shared"
import { Effect, Fiber } from "effect"
import { toSendErrorBody, type UpstreamError, type UpstreamCallError, type UpstreamRequestInvalid } from "../upstream/errors.js"
import type { ChannelCredentialsCache } from "../channels/channel-credentials.js"
import { placeholdersOf } from "./template-parameters.js"
import type { TemplateRow } from "./template-rows.js"

/** How long a create may wait for the upstream (gateway deadline 10 s, 3 retries with backoff), with room to spare. */
export const SUBMITTING_MS = 120_000

/**
 * How long a PATCH may hold its template pending before it counts as dead. From its mark to its
 * final write a live edit makes one upstream call (a POST: 10 s deadline, never retried) and
 * two statements; 2 minutes is far past that even on a slow database, so an edit older than
 * this is one whose process died, and the sweep (or a sync) settles it. Shorter would let the
 * sweep race a live edit; longer only keeps a dead one's template locked longer.
 */
export const TEMPLATE_EDIT_MS = 120_000

/** Meta's rule for template names; checked here so a bad name is a 422 at `name`, not a 502. */
export const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/

export const issue = (loc: ReadonlyArray<PropertyKey>, msg: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new ValidationFailed({
    detail: [{ loc: ["body", ...loc.map((k) => (typeof k === "number" ? k : String(k)))], msg, type: "value_error", input: input ?? null, ctx }]
  })

/** 422 at each component issue (paths relative to `components`). */
export const componentIssues = (issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>) =>
  new ValidationFailed({
    detail: issues.map((i) => ({
      loc: ["body", "components", ...i.path.map((k) => (typeof k === "number" ? k : String(k)))],
      msg: i.message,
      type: "value_error",
      input: null,
      ctx: {}
    }))
  })

export const duplicate = (input: { readonly name: string; readonly language_code: string; readonly channel_id: number }) =>
  issue(
    ["name"],
    `channel ${input.channel_id} already has a template ${input.name} in ${input.language_code}; edit it with PATCH or pick another name`,
    input.name
  )

export const positionalMessage = (name: string) =>
  `{{${name}}} is a named placeholder: a POSITIONAL template uses {{1}}, {{2}}, ...; set parameter_format NAMED to use names`

/**
 * Meta reads the placeholders of a template that is not NAMED as positional ({{1}}, {{2}}, ...):
 * a named one there is refused upstream, so it is a 422 at the BODY text (also a card's) here.
 */
export const namedInPositional = (components: ReadonlyArray<TemplateComponent>, parameterFormat: string | null | undefined) => {
  const issues: Array<{ readonly path: ReadonlyArray<string | number>; readonly message: string }> = []
  if (parameterFormat === "NAMED") return issues
  const check = (c: TemplateComponent | CardComponent, at: ReadonlyArray<string | number>) => {
    if (c.type !== "BODY") return
    const named = placeholdersOf(c.text).filter((p) => !/^\d+$/.test(p))
    if (named.length > 0) issues.push({ path: [...at, "text"], message: positionalMessage(named[0]!) })
  }
  components.forEach((c, i) => {
    check(c, [i])
    if (c.type === "CAROUSEL") c.cards.forEach((card, k) => card.components.forEach((cc, j) => check(cc, [i, "cards", k, "components", j])))
  })
  return issues
}

/**
 * 502 `upstream_error` whose message is the upstream's own text (SPEC §4.2), with its
 * classification and Meta fields as on the other routes, all scrubbed of tokens by the
 * gateway; a call refused before reaching the upstream is an unusable channel.
 */
export const upstreamFailed = (e: UpstreamCallError | UpstreamRequestInvalid) => {
  if (e._tag === "UpstreamRequestInvalid") return new ChannelUnusable({ message: e.message })
  const { message, ...fields } = toSendErrorBody(e)
  return new UpstreamFailure({ message, ...fields })
}

/**
 * The upstream refused the content of an edit (Graph code 100 and the like, a 4xx):
 * SPEC §3.1 makes that a rejected row, not an error. Authentication, permissions, rate
 * limits and server trouble stay 502s: they say nothing about the template.
 */
export const isEditRejection = (e: UpstreamCallError | UpstreamRequestInvalid): e is UpstreamError =>
  e._tag === "UpstreamError" && e.http_status !== null && e.http_status >= 400 && e.http_status < 500 &&
  ["invalid_parameter", "unknown", "template_missing", "template_param_mismatch"].includes(e.kind)

/** Graph's "message template not found" on delete: already gone upstream. */
export const isTemplateMissing = (e: UpstreamCallError | UpstreamRequestInvalid) =>
  e._tag === "UpstreamError" && (e.http_status === 404 || e.meta_subcode === 2593002)

export const lower = (s: string | null) => s?.toLowerCase() ?? null

/**
 * Runs `effect` to its end even when the caller is interrupted (a client hanging up): the
 * caller waits for it, and the effect itself stays interruptible inside, so the gateway's
 * deadlines still cut a slow upstream call short. A daemon: a child fiber would receive the
 * caller's interruption too.
 */
export const toTheEnd = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.uninterruptibleMask((restore) => Effect.flatMap(Effect.forkDaemon(restore(effect)), Fiber.join))

/** The chat channel a template request names in its body: missing, another account's or social is 422 at channel_id. */
export const bodyChannel = (channels: ChannelCredentialsCache, accountId: number, channelId: number) =>
  channels.get(accountId, channelId).pipe(
    Effect.catchTag("NotFound", () => Effect.fail(issue(["channel_id"], `channel ${channelId} not found`, channelId))),
    Effect.filterOrFail(
      (channel) => channel.type === "chat",
      () => issue(["channel_id"], `channel ${channelId} is a social channel: templates exist only on chat channels`, channelId)
    )
  )

/** The channel of a stored template; gone or unusable is 422 channel_unusable. */
export const rowChannel = (channels: ChannelCredentialsCache, accountId: number, row: TemplateRow) =>
  row.platform_channel_id === null
    ? Effect.fail(new ChannelUnusable({ message: "the template has no channel" }))
    : channels.get(accountId, row.platform_channel_id).pipe(
      Effect.catchTag("NotFound", () => Effect.fail(new ChannelUnusable({ message: "the template's channel no longer exists" })))
    )
