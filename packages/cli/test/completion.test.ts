import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "./support/cli.js"

/** What bash offers for the words typed so far (the last one being completed), with the script `completion bash` printed. */
const complete = (script: string, words: ReadonlyArray<string>): string[] => {
  const file = join(mkdtempSync(join(tmpdir(), "cli-completion-")), "platform.bash")
  writeFileSync(file, script)
  const array = words.map((w) => `'${w}'`).join(" ")
  const ran = spawnSync("bash", ["-c", `source ${file}; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _platform; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: "utf8" })
  expect(ran.stderr).toBe("")
  return ran.stdout.split("\n").filter((l) => l !== "")
}

describe("platform completion", () => {
  it("bash: completes commands, subcommands and a command's options, past option values", async () => {
    const ran = await cli(["completion", "bash"])
    expect(ran.code).toBe(0)
    expect(complete(ran.stdout, ["platform", "ke"])).toEqual(["keys"])
    expect(complete(ran.stdout, ["platform", "keys", ""])).toEqual(["list", "create", "update", "delete"])
    expect(complete(ran.stdout, ["platform", "--profile", "work", "channels", "dis"])).toEqual(["display-name", "disconnect"])
    expect(complete(ran.stdout, ["platform", "keys", "create", "--ra"])).toEqual(["--rate-limit"])
    expect(complete(ran.stdout, ["platform", "completion", ""])).toEqual(["bash", "zsh", "fish"])
    expect(complete(ran.stdout, ["platform", "trigger", "message.re"])).toEqual(["message.received", "message.read"])
  })

  it.each(["zsh", "fish"])("%s: prints a script naming every top-level command", async (shell) => {
    const ran = await cli(["completion", shell])
    expect(ran.code).toBe(0)
    for (const name of ["send", "keys", "trigger", "billing", "whoami", "completion"]) expect(ran.stdout).toContain(name)
    expect(ran.stdout).toContain(shell === "fish" ? "complete -c platform" : "bashcompinit")
  })

  it("an unknown shell is a usage error naming the choices", async () => {
    const ran = await cli(["completion", "tcsh"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toContain("bash, zsh, fish")
  })
})
