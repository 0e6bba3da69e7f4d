import { dashboard } from "../../dashboard/session.js"
import { command, defined, int, list, type CommandFactory } from "../util.js"
import { type ApiKey, expiry, KEYS_PATH, printKey } from "./common.js"

export const keysCreate: CommandFactory = (ctx) =>
  command("create", "Create an API key; its plaintext is printed this once")
    .requiredOption("--name <name>", "a label for the key")
    .option("--scopes <scopes>", "comma-separated scopes (default: all 11: send:messages, manage:templates, read:channels, …)", list)
    .option("--expires-at <time>", "when the key stops working: ISO 8601, or a span from now (30d, 12h, 90m)", expiry)
    .option("--rate-limit <n>", "requests per minute (default 60)", int)
    .option("--save", "also store the new key as the selected profile's API key")
    .action(async (o: { name: string; scopes?: string[]; expiresAt?: string; rateLimit?: number; save?: boolean }) => {
      const body = defined({ name: o.name, scopes: o.scopes, expires_at: o.expiresAt, rate_limit_per_minute: o.rateLimit })
      const created = await dashboard<ApiKey & { key: string }>(ctx, "POST", KEYS_PATH, body)
      if (o.save === true) await ctx.saveProfile({ api_key: created.key })
      ctx.out.result(created, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Created API key ${ctx.out.c.bold(String(created.id))}: ${ctx.out.c.bold(created.key)}`)
        printKey(ctx, created)
        ctx.out.info(ctx.out.ce.yellow("Copy the key now: it is shown this once and cannot be read back."))
        if (o.save === true) ctx.out.info(`Saved as the API key of profile ${ctx.profileName}.`)
      })
    })
