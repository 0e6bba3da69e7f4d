import { CliError, type Context, ExitCode, usage } from "./context.js"
import { readLine } from "./commands/util.js"

/**
 * Asks a yes/no question on stderr and reads the answer from stdin; `--yes` skips it. Without a terminal to ask at,
 * a destructive command needs `--yes` (a usage error otherwise), so a script never hangs on a prompt.
 */
export const confirm = async (ctx: Context, question: string, yes: boolean): Promise<void> => {
  if (yes) return
  const stdin = ctx.io.stdin as (AsyncIterable<string | Uint8Array> & { readonly isTTY?: boolean }) | undefined
  if (stdin === undefined || stdin.isTTY !== true) throw usage(`${question} Pass --yes to confirm (no terminal to ask at).`)
  ctx.out.info(`${question} [y/N]`)
  const answer = await readLine(stdin)
  if (!/^y(es)?$/i.test(answer)) throw new CliError("Cancelled.", ExitCode.failure)
}
