import { Argument, type Command } from "commander"
import { command, type CommandFactory } from "../util.js"
import { bashScript, fishScript, zshScript } from "./scripts.js"

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const

/** `platform completion bash|zsh|fish`: prints the shell's completion script, generated from the command tree. */
export const completion = (root: () => Command): CommandFactory => (ctx) =>
  command("completion", "Print a shell completion script (bash, zsh or fish)")
    .addArgument(new Argument("<shell>", "the shell").choices(Object.keys(SHELLS)))
    .addHelpText(
      "after",
      "\nInstall:\n  bash  echo 'source <(platform completion bash)' >> ~/.bashrc\n  zsh   echo 'source <(platform completion zsh)' >> ~/.zshrc\n  fish  platform completion fish > ~/.config/fish/completions/platform.fish\n"
    )
    .action((shell: keyof typeof SHELLS) => {
      ctx.io.stdout.write(SHELLS[shell](root()))
    })
