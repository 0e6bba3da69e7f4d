import { CliError, ExitCode, usage } from "../../context.js"
import { command, int, json, type CommandFactory } from "../util.js"

export const sandboxInbound: CommandFactory = (ctx) =>
  command("inbound", "Inject an inbound message from a user, as the sandbox upstream would post it")
    .requiredOption("--channel <id>", "sandbox channel id", int)
    .requiredOption("--from <peer>", "the sender (phone number or user id)")
    .option("--text <text>", "text message")
    .option("--type <type>", "message type for a non-text message")
    .option("--payload <json>", "the type's object, as JSON", json)
    .option("--email <email>", "dashboard login (env PLATFORM_DASHBOARD_EMAIL)")
    .option("--password <password>", "dashboard password (env PLATFORM_DASHBOARD_PASSWORD)")
    .addHelpText("after", "\nThe sandbox route is part of the dashboard, so this signs in with the dashboard email and password.\n")
    .action(async (o) => {
      if ((o.text === undefined) === (o.type === undefined)) throw usage("give --text, or --type with --payload")
      const email = (o.email as string | undefined) ?? ctx.io.env.PLATFORM_DASHBOARD_EMAIL
      const password = (o.password as string | undefined) ?? ctx.io.env.PLATFORM_DASHBOARD_PASSWORD
      if (!email || !password) {
        throw new CliError("The sandbox needs the dashboard login: pass --email/--password or set PLATFORM_DASHBOARD_EMAIL/PLATFORM_DASHBOARD_PASSWORD.", ExitCode.auth)
      }
      const base = (await ctx.baseUrl()).value.replace(/\/+$/, "")
      const origin = new URL(base).origin
      const headers = { "content-type": "application/json", accept: "application/json", origin }
      const signal = ctx.signal ? { signal: ctx.signal } : {}
      const loginResponse = await ctx.fetch(`${base}/platform/dashboard/login`, { method: "POST", headers, body: JSON.stringify({ email, password }), ...signal })
      if (loginResponse.status === 401) throw new CliError("Dashboard login failed: wrong email or password.", ExitCode.auth)
      if (!loginResponse.ok) throw new CliError(`Dashboard login failed with HTTP ${loginResponse.status}: ${await loginResponse.text()}`)
      const cookie = loginResponse.headers
        .getSetCookie()
        .map((c) => c.split(";")[0]!)
        .join("; ")
      if (cookie === "") throw new CliError("Dashboard login answered without a session cookie.")
      const body = { channel_id: o.channel as number, from: o.from as string, ...(o.text !== undefined ? { text: o.text as string } : { type: o.type as string, payload: o.payload ?? {} }) }
      const response = await ctx.fetch(`${base}/platform/dashboard/sandbox/inbound`, { method: "POST", headers: { ...headers, cookie }, body: JSON.stringify(body), ...signal })
      const text = await response.text()
      let result: unknown = text
      try {
        result = JSON.parse(text)
      } catch {
        // keep the text
      }
      if (response.status === 404) {
        const message = (result as { detail?: { message?: unknown } } | null)?.detail?.message
        throw new CliError(
          message === "channel not found"
            ? `Channel ${o.channel as number} was not found in this account (or is disconnected).`
            : "The sandbox inbound route was not found: is the server running with the sandbox upstream?"
        )
      }
      if (!response.ok) throw new CliError(`Sandbox inbound failed with HTTP ${response.status}: ${text}`, response.status === 401 ? ExitCode.auth : ExitCode.failure)
      const messageId = (result as { message_id?: unknown } | null)?.message_id
      ctx.out.result(result, () =>
        ctx.out.line(
          `${ctx.out.c.green("✓")} Injected an inbound ${o.type ?? "text"} message from ${o.from as string} on channel ${o.channel as number}${
            typeof messageId === "string" ? ` (${messageId})` : ""
          }`
        ))
    })
