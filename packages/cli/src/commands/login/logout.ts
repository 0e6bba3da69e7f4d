import { APIError } from "@platform/sdk"
import { CliError } from "../../context.js"
import { dashboard } from "../../dashboard/session.js"
import { command, type CommandFactory } from "../util.js"

export const logout: CommandFactory = (ctx) =>
  command("logout", "Sign out of the dashboard and forget the credentials the selected profile holds (session and API key)")
    .option("--keep-key", "forget only the dashboard session, keep the stored API key")
    .action(async (o: { keepKey?: boolean }) => {
      const profile = await ctx.profile()
      const forgotten: string[] = []
      if (profile.session !== undefined) {
        // Revoking is a courtesy to the server: a session it already dropped is forgotten all the same.
        await dashboard(ctx, "POST", "/platform/dashboard/logout").catch((error: unknown) => {
          if (!(error instanceof APIError) && !(error instanceof CliError)) throw error
        })
        forgotten.push(`the dashboard session of ${profile.session.email}`)
      }
      if (profile.api_key !== undefined && o.keepKey !== true) forgotten.push("the API key")
      await ctx.forget(o.keepKey === true ? ["session"] : ["session", "api_key"])
      ctx.out.result({ profile: ctx.profileName, forgotten }, () =>
        ctx.out.line(
          forgotten.length === 0
            ? `Profile ${ctx.profileName} held no credentials; nothing to do.`
            : `${ctx.out.c.green("✓")} Signed out: forgot ${forgotten.join(" and ")} (profile ${ctx.profileName}).`
        )
      )
    })
