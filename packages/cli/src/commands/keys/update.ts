import { usage } from "../../context.js"
import { dashboard } from "../../dashboard/session.js"
import { command, defined, int, type CommandFactory } from "../util.js"
import { type ApiKey, expiry, KEYS_PATH, printKey } from "./common.js"

export const keysUpdate: CommandFactory = (ctx) =>
  command("update", "Rename, deactivate, reactivate, expire or re-limit an API key (scopes are fixed at creation)")
    .argument("<id>", "the key's id (`platform keys list`)", int)
    .option("--name <name>", "a new label")
    .option("--active", "let the key work again")
    .option("--inactive", "stop the key working (requests with it are 401) without deleting it")
    .option("--expires-at <time>", "ISO 8601, or a span from now (30d, 12h, 90m)", expiry)
    .option("--no-expires-at", "never expire")
    .option("--rate-limit <n>", "requests per minute", int)
    .action(async (id: number, o: { name?: string; active?: boolean; inactive?: boolean; expiresAt?: string | false; rateLimit?: number }) => {
      if (o.active === true && o.inactive === true) throw usage("--active and --inactive exclude each other.")
      const body = defined({
        name: o.name,
        is_active: o.active === true ? true : o.inactive === true ? false : undefined,
        expires_at: o.expiresAt === false ? null : o.expiresAt,
        rate_limit_per_minute: o.rateLimit
      })
      if (Object.keys(body).length === 0) throw usage("Nothing to change: give --name, --active, --inactive, --expires-at, --no-expires-at or --rate-limit.")
      const key = await dashboard<ApiKey>(ctx, "PATCH", `${KEYS_PATH}/${id}`, body)
      ctx.out.result(key, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Updated API key ${ctx.out.c.bold(String(id))}`)
        printKey(ctx, key)
      })
    })
