import { ExitCode, CliError } from "../../context.js"
import { command, int, readSecretLine, type CommandFactory } from "../util.js"

export const channelsTwoFactor: CommandFactory = (ctx) =>
  command("two-factor", "Set a chat channel's two-step verification PIN")
    .argument("<channel_id>", "channel id", int)
    .option("--pin <digits>", "the 6-digit PIN (or give it on stdin, which keeps it out of shell history)")
    .addHelpText("after", "\nThe PIN comes from --pin or one line on stdin:\n  platform channels two-factor 7 < pin.txt\nTyped at a terminal, it is not echoed. It is never printed.\n")
    .action(async (channelId: number, o) => {
      let pin = o.pin as string | undefined
      if (pin === undefined && ctx.io.stdin) {
        ctx.out.info("Enter the 6-digit PIN and press Enter:")
        pin = await readSecretLine(ctx.io.stdin) // at a terminal, not echoed
      }
      if (!pin) throw new CliError("No PIN given: pass --pin or give it on stdin.", ExitCode.usage)
      const result = await ctx.out.spin("Setting the PIN", (await ctx.client()).channels.setTwoFactorPin(channelId, { pin }))
      ctx.out.result(result, () =>
        ctx.out.line(`${ctx.out.c.green("✓")} Two-step verification PIN set for channel ${ctx.out.c.bold(String(result.channel_id))}`)
      )
    })
