import { AuthenticationError, PermissionDeniedError } from "@platform/sdk"
import { CliError, type Context, ExitCode } from "../../context.js"
import { signIn } from "../../dashboard/session.js"
import { command, readSecretLine, type CommandFactory } from "../util.js"

export const login: CommandFactory = (ctx) =>
  command("login", "Store an API key, or sign in to the dashboard with --email (a session for keys, channels, billing…), in the selected profile")
    // The key and where it goes are global options (--api-key, --base-url, --profile): login's help lists them.
    .configureHelp({ showGlobalOptions: true })
    .option("--email <email>", "sign in to the dashboard as this user (the password is prompted for, without echo)")
    .option("--password-stdin", "with --email: read the password from stdin instead of prompting")
    .addHelpText(
      "after",
      "\nAn API key comes from --api-key, PLATFORM_API_KEY, or one line on stdin:\n  echo \"$KEY\" | platform login\n" +
        "A dashboard session (for `keys`, `channels connect`, `webhooks raw-forward`, `billing`, `trigger`):\n" +
        "  platform login --email you@example.com\n  echo \"$PASSWORD\" | platform login --email you@example.com --password-stdin\n"
    )
    .action(async (o: { email?: string; passwordStdin?: boolean }) => {
      if (o.email !== undefined) return dashboardLogin(ctx, o.email, o.passwordStdin === true)
      if (o.passwordStdin === true) throw new CliError("--password-stdin goes with --email.", ExitCode.usage)
      return apiKeyLogin(ctx)
    })

const dashboardLogin = async (ctx: Context, email: string, fromStdin: boolean): Promise<void> => {
  const stdin = ctx.io.stdin
  let password = fromStdin ? undefined : ctx.io.env.PLATFORM_DASHBOARD_PASSWORD
  if (password === undefined && stdin) {
    if (!fromStdin) ctx.out.info(`Password for ${email}:`)
    password = await readSecretLine(stdin, "Interrupted: not logged in.") // at a terminal, not echoed
  }
  if (!password) throw new CliError("No password given: type it at the prompt or pipe it with --password-stdin.", ExitCode.usage)
  const { session, me } = await ctx.out.spin("Signing in", signIn(ctx, email, password))
  const baseUrl = await ctx.baseUrl()
  await ctx.saveProfile({ session, ...(baseUrl.source !== "default" ? { base_url: baseUrl.value } : {}) })
  ctx.out.result(
    { profile: ctx.profileName, base_url: baseUrl.value, email: me.user.email, account: me.account, plan: me.plan, session_expires_at: session.expires_at ?? null, config: ctx.configPath },
    () =>
      ctx.out.line(
        `${ctx.out.c.green("✓")} Signed in to ${baseUrl.value} as ${ctx.out.c.bold(me.user.email)} (account ${me.account.name}, plan ${me.plan}) in profile ${ctx.out.c.bold(ctx.profileName)}` +
          `${session.expires_at ? `; the session lasts until ${session.expires_at}` : ""}; saved to ${ctx.configPath}`
      )
  )
}

const apiKeyLogin = async (ctx: Context): Promise<void> => {
  // The profile's stored key is what login replaces, never the key it checks.
  const given = await ctx.apiKey()
  let key = given !== undefined && given.source !== "profile" ? given.value : undefined
  if (key === undefined && ctx.io.stdin) {
    ctx.out.info("Paste your API key (from the dashboard, API keys) and press Enter:")
    key = await readSecretLine(ctx.io.stdin, "Interrupted: not logged in.") // at a terminal, not echoed
  }
  if (!key) throw new CliError("No API key given: pass --api-key or pipe it on stdin.", ExitCode.usage)
  const client = await ctx.clientFor(key)
  let note = ""
  try {
    await ctx.out.spin("Checking the key", client.channels.list())
  } catch (e) {
    if (e instanceof AuthenticationError) throw new CliError("The API key was rejected (401): check it in the dashboard.", ExitCode.auth)
    // A valid key without read:channels answers 403: it is still a working key.
    if (!(e instanceof PermissionDeniedError)) throw e
    note = " (the key lacks read:channels)"
  }
  const baseUrl = await ctx.baseUrl()
  await ctx.saveProfile({ api_key: key, ...(baseUrl.source !== "default" ? { base_url: baseUrl.value } : {}) })
  const masked = maskKey(key)
  ctx.out.result({ profile: ctx.profileName, base_url: baseUrl.value, api_key: masked, config: ctx.configPath }, () =>
    ctx.out.line(`${ctx.out.c.green("✓")} Logged in to ${baseUrl.value} as profile ${ctx.out.c.bold(ctx.profileName)} with key ${masked}${note}; saved to ${ctx.configPath}`)
  )
}

/** An API key with all but its start and end hidden. */
export const maskKey = (key: string): string => `${key.slice(0, 8)}…${key.slice(-4)}`
