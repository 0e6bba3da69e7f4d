import { dashboard, type Me } from "../../dashboard/session.js"
import { command, type CommandFactory } from "../util.js"
import { maskKey } from "./login.js"

export const whoami: CommandFactory = (ctx) =>
  command("whoami", "Show the account, e-mail and plan of the dashboard session, and which credentials the selected profile holds")
    .action(async () => {
      const profile = await ctx.profile()
      const key = await ctx.apiKey()
      const baseUrl = await ctx.baseUrl()
      const me = profile.session === undefined ? undefined : await dashboard<Me>(ctx, "GET", "/platform/dashboard/me")
      const value = {
        profile: ctx.profileName,
        base_url: baseUrl.value,
        email: me?.user.email ?? null,
        account: me ? { id: me.account.id, name: me.account.name } : null,
        role: me?.role ?? null,
        plan: me?.plan ?? null,
        session: profile.session ? { email: profile.session.email, expires_at: profile.session.expires_at ?? null } : null,
        api_key: key ? { key: maskKey(key.value), source: key.source } : null
      }
      ctx.out.result(value, () => {
        ctx.out.fields([
          ["profile", ctx.profileName],
          ["base url", baseUrl.value],
          ["e-mail", value.email],
          ["account", me ? `${me.account.name} (id ${me.account.id})` : null],
          ["role", value.role],
          ["plan", value.plan],
          ["session", profile.session ? `dashboard session${profile.session.expires_at ? ` until ${profile.session.expires_at}` : ""}` : "none"],
          ["api key", key ? `${maskKey(key.value)} (from ${key.source})` : "none"]
        ])
        if (!me) ctx.out.info(ctx.out.ce.dim("No dashboard session: `platform login --email <your e-mail>` shows the account and plan, and enables keys, billing, channels connect."))
      })
    })
