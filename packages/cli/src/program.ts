import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  MediaFileError,
  PermissionDeniedError,
  RateLimitError,
  UnexpectedResponseError,
  UpstreamError,
  ValidationError,
  VERSION
} from "@platform/sdk"
import { Command, CommanderError } from "commander"
import { broadcasts } from "./commands/broadcasts/index.js"
import { channels } from "./commands/channels/index.js"
import { contacts } from "./commands/contacts/index.js"
import { conversations } from "./commands/conversations/index.js"
import { deliveries } from "./commands/deliveries/index.js"
import { events } from "./commands/events/index.js"
import { completion } from "./commands/completion/completion.js"
import { help } from "./commands/help/help.js"
import { listen } from "./commands/listen/listen.js"
import { login } from "./commands/login/login.js"
import { logout } from "./commands/login/logout.js"
import { whoami } from "./commands/login/whoami.js"
import { keys } from "./commands/keys/index.js"
import { webhooks } from "./commands/webhooks/index.js"
import { billing } from "./commands/billing/billing.js"
import { media } from "./commands/media/index.js"
import { messages } from "./commands/messages/index.js"
import { markRead } from "./commands/messages/mark-read.js"
import { sandbox } from "./commands/sandbox/index.js"
import { send } from "./commands/send/index.js"
import { subscriptions } from "./commands/subscriptions/index.js"
import { templates } from "./commands/templates/index.js"
import { trigger } from "./commands/trigger/trigger.js"
import { issueLocation } from "./issue-flags.js"
import { CliError, Context, ExitCode, usage, type GlobalFlags, type RunIO } from "./context.js"

export type { RunIO } from "./context.js"
export { ExitCode } from "./context.js"

const each = (cmd: Command, f: (c: Command) => void): void => {
  f(cmd)
  for (const sub of cmd.commands) each(sub, f)
}

/** Builds the `platform` command tree over a context. */
export const buildProgram = (ctx: Context): Command => {
  const program: Command = new Command("platform")
    .description("The platform from your terminal: send messages, manage webhooks, watch deliveries and events, forward events to localhost.")
    .version(VERSION, "-v, --version")
    .option("--api-key <key>", "API key (env PLATFORM_API_KEY)")
    .option("--base-url <url>", "API origin (env PLATFORM_BASE_URL; default http://localhost:8080)")
    .option("--profile <name>", "config profile (env PLATFORM_PROFILE; default \"default\")")
    .option("--json", "machine-readable output on stdout")
    .option("--no-color", "no colours (also NO_COLOR)")
    .helpCommand(false)
    .addHelpText("after", "\nTopics: `platform help environment`, `platform help exit-codes`.\n")
    .addCommand(send(ctx))
    .addCommand(markRead(ctx))
    .addCommand(messages(ctx))
    .addCommand(media(ctx))
    .addCommand(templates(ctx))
    .addCommand(channels(ctx))
    .addCommand(conversations(ctx))
    .addCommand(contacts(ctx))
    .addCommand(subscriptions(ctx))
    .addCommand(deliveries(ctx))
    .addCommand(broadcasts(ctx))
    .addCommand(events(ctx))
    .addCommand(listen(ctx))
    .addCommand(sandbox(ctx))
    .addCommand(trigger(ctx))
    .addCommand(login(ctx))
    .addCommand(logout(ctx))
    .addCommand(whoami(ctx))
    .addCommand(keys(ctx))
    .addCommand(webhooks(ctx))
    .addCommand(billing(ctx))
  program.addCommand(help(() => program)(ctx))
  program.addCommand(completion(() => program)(ctx))
  program.hook("preAction", (_root, action) => {
    const o = action.optsWithGlobals<Record<string, unknown>>()
    const flags: GlobalFlags = {
      ...(typeof o.apiKey === "string" ? { apiKey: o.apiKey } : {}),
      ...(typeof o.baseUrl === "string" ? { baseUrl: o.baseUrl } : {}),
      ...(typeof o.profile === "string" ? { profile: o.profile } : {}),
      json: o.json === true,
      color: o.color !== false
    }
    ctx.flags = flags
    ctx.command = action
  })
  each(program, (c) =>
    c
      .exitOverride()
      .showHelpAfterError("(add --help for usage)")
      .configureOutput({
        writeOut: (s) => void ctx.io.stdout.write(s),
        // With --json, stderr carries only the one JSON error run() reports (a command run without its subcommand included).
        writeErr: (s) => void (ctx.flags.json ? undefined : ctx.io.stderr.write(s)),
        // With --json, run() reports a parse error as one JSON object instead.
        outputError: (s, write) => void (ctx.flags.json ? undefined : write(s))
      })
  )
  // Root options are parsed before any subcommand fails, so --json is known by the time commander reports an error.
  program.on("option:json", () => {
    ctx.flags = { ...ctx.flags, json: true }
    each(program, (c) => c.showHelpAfterError(false))
  })
  return program
}

const report = (ctx: Context, error: unknown): number => {
  const out = ctx.out
  const e = out.ce
  const emit = (code: number, message: string, extra: ReadonlyArray<string> = [], json: Record<string, unknown> = {}): number => {
    if (ctx.flags.json) out.info(JSON.stringify({ error: { message, exit_code: code, ...json } }))
    else {
      out.info(`${e.red("Error:")} ${message}`)
      for (const line of extra) out.info(`  ${line}`)
    }
    return code
  }
  if (error instanceof CliError) return emit(error.exitCode, error.message)
  if (error instanceof MediaFileError) return emit(ExitCode.usage, `cannot upload ${error.path}: ${error.reason}`)
  if (error instanceof APIUserAbortError || ctx.signal?.aborted) return ExitCode.interrupted
  if (error instanceof APIError) {
    const requestId = error.requestId ? [e.dim(`request id: ${error.requestId}`)] : []
    const json = { status: error.status, code: error.code ?? null, request_id: error.requestId ?? null, body: error.body }
    if (error instanceof AuthenticationError) {
      return emit(ExitCode.auth, `${error.message}. Check --api-key / PLATFORM_API_KEY or run \`platform login\`.`, requestId, json)
    }
    if (error instanceof ValidationError && error.detail.length > 0) {
      const lines = error.detail.map((d) => `${e.bold(issueLocation(d, ctx.command))}: ${d.msg}`)
      return emit(ExitCode.failure, "the request is invalid (422):", [...lines, ...requestId], json)
    }
    if (error instanceof PermissionDeniedError && error.requiredScope) {
      return emit(ExitCode.failure, `${error.message}. Create a key with the ${error.requiredScope} scope in the dashboard.`, requestId, json)
    }
    if (error instanceof RateLimitError) return emit(ExitCode.failure, `${error.message}; retry in ${error.retryAfter ?? "a few"} s.`, requestId, json)
    if (error instanceof UnexpectedResponseError) return emit(ExitCode.failure, `${error.message} Check --base-url / PLATFORM_BASE_URL.`, requestId, json)
    if (error instanceof UpstreamError && error.hint !== null) {
      // The SDK ends its message with the hint; on a terminal it gets a line of its own.
      const suffix = `. Hint: ${error.hint}`
      const message = error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message
      return emit(ExitCode.failure, message, [`${e.bold("hint:")} ${error.hint}`, ...requestId], { ...json, hint: error.hint })
    }
    return emit(ExitCode.failure, error.message, requestId, json)
  }
  if (error instanceof APIConnectionError) return emit(ExitCode.failure, `could not reach the API: ${error.message} Is the server running? (--base-url)`)
  return emit(ExitCode.failure, error instanceof Error ? error.message : String(error))
}

/** What a command run without its subcommand (`platform send`) lacks, for the --json error. */
const missingSubcommand = (program: Command, argv: ReadonlyArray<string>): string => {
  let cmd = program
  const path = [program.name()]
  for (const arg of argv) {
    const sub = cmd.commands.find((c) => c.name() === arg)
    if (sub === undefined) continue
    cmd = sub
    path.push(arg)
  }
  const names = cmd.commands.map((c) => c.name()).filter((name) => name !== "help")
  return `${path.join(" ")} needs a command: ${names.join(", ")} (see \`${path.join(" ")} --help\`)`
}

/** Runs the CLI in-process with the given streams, environment and fetch, and returns the exit code. */
export const run = async (argv: ReadonlyArray<string>, io: RunIO): Promise<number> => {
  const ctx = new Context(io)
  const program = buildProgram(ctx)
  try {
    await program.parseAsync([...argv], { from: "user" })
    return io.signal?.aborted ? ExitCode.interrupted : ExitCode.ok
  } catch (error) {
    if (!(error instanceof CommanderError)) return report(ctx, error)
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok
    // "commander.help" is a command run without its subcommand: the help on stderr says it all, except with --json.
    if (ctx.flags.json) {
      return report(ctx, usage(error.code === "commander.help" ? missingSubcommand(program, argv) : error.message.replace(/^error: /, "")))
    }
    return ExitCode.usage
  }
}
