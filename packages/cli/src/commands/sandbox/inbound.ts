import { AuthenticationError, NotFoundError, Platform } from "@platform/sdk"
import { CliError, ExitCode, usage } from "../../context.js"
import { command, int, json, type CommandFactory } from "../util.js"

const detailMessage = (body: unknown): unknown => (body as { detail?: { message?: unknown } } | null)?.detail?.message

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
      const base = (await ctx.baseUrl()).value
      // The dashboard routes take a session cookie, never an API key (the header is removed below); going through the
      // SDK's core still gives them its timeout, its connection errors and its typed HTTP errors, reported like any command's.
      const dashboard = new Platform({ apiKey: "dashboard-session", baseUrl: base, fetch: ctx.io.fetch, maxRetries: 0 })
      const headers = { "x-api-key": null, origin: new URL(base).origin }
      const signal = ctx.signal ? { signal: ctx.signal } : {}
      const login = await dashboard
        .requestWithResponse({ method: "POST", path: "/platform/dashboard/login", body: { email, password } }, { headers, ...signal })
        .catch((error: unknown) => {
          if (error instanceof AuthenticationError) throw new CliError("Dashboard login failed: wrong email or password.", ExitCode.auth)
          throw error
        })
      const cookie = login.response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0]!)
        .join("; ")
      if (cookie === "") throw new CliError("Dashboard login answered without a session cookie.")
      const body = { channel_id: o.channel as number, from: o.from as string, ...(o.text !== undefined ? { text: o.text as string } : { type: o.type as string, payload: o.payload ?? {} }) }
      const result = await dashboard
        .request<{ message_id?: unknown; inbound_enabled?: unknown }>({ method: "POST", path: "/platform/dashboard/sandbox/inbound", body }, { headers: { ...headers, cookie }, ...signal })
        .catch((error: unknown) => {
          if (error instanceof AuthenticationError) throw new CliError(`The dashboard session was refused: ${error.message}`, ExitCode.auth)
          if (!(error instanceof NotFoundError)) throw error
          throw new CliError(
            detailMessage(error.body) === "channel not found"
              ? `Channel ${o.channel as number} was not found in this account (or is disconnected).`
              : "The sandbox inbound route was not found: is the server running with the sandbox upstream?"
          )
        })
      const messageId = result.message_id
      ctx.out.result(result, () => {
        ctx.out.line(
          `${ctx.out.c.green("✓")} Injected an inbound ${o.type ?? "text"} message from ${o.from as string} on channel ${o.channel as number}${
            typeof messageId === "string" ? ` (${messageId})` : ""
          }`
        )
        if (result.inbound_enabled === false) {
          ctx.out.info(ctx.out.ce.yellow(
            `Channel ${o.channel as number} has inbound switched off, so the platform dropped it: no message, no message.received. ` +
              `Switch it on with \`platform channels inbound ${o.channel as number} --on\`.`
          ))
        }
      })
    })
