import type { Command } from "commander"
import { usage } from "../../context.js"
import { command, type CommandFactory } from "../util.js"
import { environment, exitCodes } from "./topics.js"

/** `platform help [topic|command...]`: the environment and exit-code topics, or a command's help. */
export const help =
  (root: () => Command): CommandFactory =>
  (ctx) =>
    command("help", "Show help for a command, or a topic: environment, exit-codes")
      .argument("[topic...]", "environment | exit-codes | a command path such as `send text`")
      .action((topic: string[]) => {
        if (topic.length === 1 && topic[0] === "environment") return void ctx.out.line(environment)
        if (topic.length === 1 && topic[0] === "exit-codes") return void ctx.out.line(exitCodes)
        let cmd = root()
        for (const name of topic) {
          const next = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name))
          if (!next) throw usage(`no help topic or command ${JSON.stringify(topic.join(" "))}: try \`platform help\``)
          cmd = next
        }
        ctx.out.stdout.write(cmd.helpInformation())
      })
