import { sign, signStandard } from "@platform/webhook-verify/testing"
import { CliError, usage } from "../../context.js"
import { clock } from "../../output.js"
import { reconnectNotices } from "../events/reconnect-notices.js"
import { command, header, int, list, type CommandFactory } from "../util.js"

/** A new local signing secret in the `whsec_<base64>` form (valid for both signature schemes). */
export const newSecret = (): string => {
  const bytes = new Uint8Array(32)
  globalThis.crypto.getRandomValues(bytes)
  return `whsec_${Buffer.from(bytes).toString("base64")}`
}

const FORWARD_TIMEOUT_MS = 10_000

/** How a failed forward reads, in the words `deliveries list` uses for a failed delivery (its last_error). */
const FAILURE_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the receiver",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_SOCKET: "connection closed by the receiver"
}

/** Why a forward got no answer: `connection refused (ECONNREFUSED)`, `no response within 10000 ms`. */
export const forwardFailure = (error: unknown): string => {
  if (error instanceof Error && error.name === "TimeoutError") return `no response within ${FORWARD_TIMEOUT_MS} ms`
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  const code = typeof cause?.code === "string" ? cause.code : undefined
  if (code !== undefined) return FAILURE_REASONS[code] === undefined ? code : `${FAILURE_REASONS[code]} (${code})`
  if (typeof cause?.message === "string") return cause.message
  return error instanceof Error ? error.message : String(error)
}

/** Whether a secret can sign both schemes: `whsec_` and the base64 key webhook-verify decodes. */
const signable = async (secret: string): Promise<boolean> =>
  secret.startsWith("whsec_") && (await signStandard(secret, "").then(() => true, () => false))

/** Headers `listen` sets on each forward (or that belong to the connection): a --header may not name them. */
const OWN_HEADERS = new Set([
  "content-type",
  "user-agent",
  "x-platform-event",
  "x-platform-event-id",
  "x-platform-delivery-id",
  "x-platform-signature",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "host",
  "content-length",
  "transfer-encoding",
  "connection"
])
/** A header name (RFC 9110 token) and what a value cannot carry (control characters). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// eslint-disable-next-line no-control-regex
const NOT_IN_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/

/** Why a --header cannot go on a forward, or undefined when it can. */
const headerProblem = (name: string, value: string): string | undefined => {
  if (!HEADER_NAME.test(name)) return `--header ${JSON.stringify(name)} is not a valid header name`
  if (OWN_HEADERS.has(name.toLowerCase())) {
    return `--header ${name}: listen sets this header itself (the signature headers sign the body it sends), so it cannot be replaced`
  }
  if (NOT_IN_VALUE.test(value)) return `--header ${name}: the value contains a control character`
  return undefined
}

const SECRET_FORM = "a signing secret of the form whsec_<base64>, such as `platform listen --print-secret` prints"

export const listen: CommandFactory = (ctx) =>
  command("listen", "Stream events and forward each to a local URL, signed with a local secret (no tunnel needed)")
    .option("--forward-to <url>", "local URL that receives the events, e.g. http://localhost:3000/webhooks (required unless --print-secret)")
    .option("--events <types>", "only these event types, comma-separated", list)
    .option("--channel <id>", "only events of this channel", int)
    .option("--secret <whsec>", "sign with this secret (default: the profile's listen secret, created on first use)")
    .option("--header <name:value>", "extra header on each forward (repeatable; not one listen sets: content-type, user-agent, x-platform-*, webhook-*)", header)
    .option("--print-secret", "print the signing secret and exit")
    .option("--count <n>", "stop after forwarding n events (exit 1 if --timeout passes first or a forward failed)", int)
    .option("--timeout <seconds>", "stop after this many seconds", int)
    .action(async (o) => {
      // --print-secret needs no receiver, so --forward-to is checked here rather than made a required option.
      if (o.forwardTo === undefined && !o.printSecret) throw usage("required option '--forward-to <url>' not specified")
      let target = new URL("invalid:")
      if (o.forwardTo !== undefined) {
        try {
          target = new URL(o.forwardTo as string)
        } catch {
          target = new URL("invalid:")
        }
        if (target.protocol !== "http:" && target.protocol !== "https:") {
          throw usage(`--forward-to must be an absolute http(s) URL such as http://localhost:3000/webhooks, got ${JSON.stringify(o.forwardTo)}`)
        }
      }
      const named = new Set<string>()
      for (const [name, value] of Object.entries((o.header as Record<string, string> | undefined) ?? {})) {
        const problem = headerProblem(name, value)
        if (problem !== undefined) throw usage(problem)
        // fetch would join the two into one "a, b" value.
        if (named.has(name.toLowerCase())) throw usage(`--header ${name} is given twice (header names ignore case)`)
        named.add(name.toLowerCase())
      }
      const profile = await ctx.profile()
      let secret = (o.secret as string | undefined) ?? profile.listen_secret
      if (secret === undefined) {
        secret = newSecret()
        await ctx.saveProfile({ listen_secret: secret })
      }
      if (!(await signable(secret))) {
        if (o.secret !== undefined) throw usage(`--secret must be ${SECRET_FORM}`)
        throw new CliError(`The listen_secret of profile "${ctx.profileName}" in ${ctx.configPath} is not ${SECRET_FORM}; remove it to have a new one created.`)
      }
      if (o.printSecret) {
        ctx.out.result({ secret }, () => ctx.out.line(secret))
        return
      }
      const client = await ctx.client()
      const count = o.count as number | undefined
      // --timeout ends the stream through its own signal, so Ctrl-C (ctx.signal) still means 130.
      const timer = o.timeout === undefined ? undefined : AbortSignal.timeout((o.timeout as number) * 1000)
      const signals = [...(ctx.signal ? [ctx.signal] : []), ...(timer ? [timer] : [])]
      const e = ctx.out.ce
      const stream = client.events.stream({
        ...(o.events ? { event_types: o.events as string[] } : {}),
        ...(o.channel !== undefined ? { channel_id: o.channel as number } : {}),
        ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
        // "Ready!" once the stream is open: events written from then on are forwarded.
        ...reconnectNotices(ctx, ({ reconnect }) => {
          if (reconnect) return ctx.out.info(e.green("Reconnected; resuming after the last event."))
          ctx.out.info(`${e.green(">")} Ready! Your webhook signing secret is ${e.bold(secret)} ${e.dim("(^C to quit)")}`)
          ctx.out.info(`  Forwarding events to ${target.href}; verify them with @platform/webhook-verify and this secret.`)
        })
      })
      let deliveryId = 0
      let refused = 0
      if (count === 0) stream.close()
      for await (const message of stream.messages()) {
        let envelope: { id?: unknown; event?: unknown }
        try {
          envelope = JSON.parse(message.data) as { id?: unknown; event?: unknown }
        } catch {
          continue
        }
        if (typeof envelope.event !== "string" || typeof envelope.id !== "string") continue
        const body = message.data
        const eventType = envelope.event
        const eventId = envelope.id
        if (!ctx.flags.json) ctx.out.line(`${ctx.out.c.dim(clock())}   ${ctx.out.c.cyan("-->")} ${ctx.out.c.bold(eventType)} [${eventId}]`)
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "user-agent": "Service-Platform/1.0 (platform listen)",
          "x-platform-event": eventType,
          "x-platform-event-id": eventId,
          "x-platform-delivery-id": String(++deliveryId),
          "x-platform-signature": await sign(secret, body),
          ...(await signStandard(secret, body, { id: eventId })),
          ...(o.header as Record<string, string> | undefined)
        }
        const started = Date.now()
        let status: number | undefined
        let error: string | undefined
        try {
          const signals = [AbortSignal.timeout(FORWARD_TIMEOUT_MS), ...(ctx.signal ? [ctx.signal] : [])]
          const response = await ctx.fetch(target, { method: "POST", headers, body, signal: AbortSignal.any(signals), redirect: "manual" })
          status = response.status
          await response.arrayBuffer().catch(() => undefined)
        } catch (err) {
          if (ctx.signal?.aborted) break
          error = forwardFailure(err)
        }
        const ms = Date.now() - started
        if (status === undefined || status < 200 || status >= 300) refused++
        if (ctx.flags.json) {
          ctx.out.jsonLine({ event_id: eventId, event: eventType, forward_to: target.href, status: status ?? null, latency_ms: ms, ...(error ? { error } : {}) })
        } else {
          const ok = status !== undefined && status >= 200 && status < 300
          const tag = status === undefined ? ctx.out.c.red(`[ERR]`) : ok ? ctx.out.c.green(`[${status}]`) : ctx.out.c.red(`[${status}]`)
          ctx.out.line(`${ctx.out.c.dim(clock())}  ${ctx.out.c.cyan("<--")} ${tag} POST ${target.href} [${eventId}] ${ctx.out.c.dim(`${ms}ms`)}${error ? ` ${ctx.out.c.red(error)}` : ""}`)
        }
        if (count !== undefined && deliveryId >= count) {
          stream.close()
          break
        }
      }
      if (count !== undefined && deliveryId < count && !ctx.signal?.aborted) {
        throw new CliError(`Timed out after ${o.timeout as number} s with ${deliveryId} of ${count} events forwarded.`)
      }
      // A scripted run (--count) succeeds only when the receiver took every event it was sent.
      if (count !== undefined && refused > 0 && !ctx.signal?.aborted) {
        throw new CliError(`${refused} of ${deliveryId} forwards to ${target.href} failed (no answer, or not 2xx).`)
      }
    })
