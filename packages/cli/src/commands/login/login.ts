import { AuthenticationError, PermissionDeniedError } from "@platform/sdk"
import { CliError, ExitCode } from "../../context.js"
import { command, readSecretLine, type CommandFactory } from "../util.js"

export const login: CommandFactory = (ctx) =>
  command("login", "Check an API key and store it (and --base-url) in the selected profile")
    .addHelpText("after", "\nThe key comes from --api-key, PLATFORM_API_KEY, or one line on stdin:\n  echo \"$KEY\" | platform login\n")
    .action(async () => {
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
      const masked = `${key.slice(0, 8)}…${key.slice(-4)}`
      ctx.out.result({ profile: ctx.profileName, base_url: baseUrl.value, api_key: masked, config: ctx.configPath }, () =>
        ctx.out.line(`${ctx.out.c.green("✓")} Logged in to ${baseUrl.value} as profile ${ctx.out.c.bold(ctx.profileName)} with key ${masked}${note}; saved to ${ctx.configPath}`)
      )
    })
