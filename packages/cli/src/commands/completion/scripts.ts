import type { Command } from "commander"

/** One command of the tree: its path from the root, its subcommands and its options (long and short forms). */
interface Node {
  readonly path: string
  readonly subcommands: ReadonlyArray<{ readonly name: string; readonly description: string }>
  /** The values an argument with choices takes (`trigger <event-type>`, `completion <shell>`). */
  readonly values: ReadonlyArray<string>
  readonly options: ReadonlyArray<{ readonly flag: string; readonly description: string }>
}

/** Every command of the tree, with what can follow it; built from commander's own definitions, so it never drifts. */
const nodes = (program: Command): ReadonlyArray<Node> => {
  const out: Node[] = []
  const globals = program.options
  const walk = (cmd: Command, path: string) => {
    const options = [...cmd.options, ...(cmd === program ? [] : globals.filter((o) => o.long !== "--version"))]
    out.push({
      path,
      subcommands: cmd.commands.map((c) => ({ name: c.name(), description: c.description() })),
      values: cmd.registeredArguments.flatMap((a) => a.argChoices ?? []),
      options: [
        ...options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined).map((flag) => ({ flag, description: o.description }))),
        { flag: "--help", description: "show help" }
      ]
    })
    for (const c of cmd.commands) walk(c, `${path} ${c.name()}`)
  }
  walk(program, program.name())
  return out
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const fishQuote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
const fn = (program: Command) => `_${program.name().replace(/\W/g, "_")}`

/** A bash completion script (zsh sources it through bashcompinit). */
export const bashScript = (program: Command): string => {
  const name = program.name()
  const f = fn(program)
  const all = nodes(program)
  const subs = all.map((n) => `    ${quote(n.path)}) echo ${quote(n.subcommands.map((s) => s.name).join(" "))} ;;`).join("\n")
  const values = all.filter((n) => n.values.length > 0).map((n) => `    ${quote(n.path)}) echo ${quote(n.values.join(" "))} ;;`).join("\n")
  const flags = all.map((n) => `    ${quote(n.path)}) echo ${quote(n.options.map((o) => o.flag).join(" "))} ;;`).join("\n")
  return `# ${name} completion for bash: source <(${name} completion bash), or save it to a bash-completion directory.
${f}_subcommands() {
  case "$1" in
${subs}
  esac
}
${f}_values() {
  case "$1" in
${values}
  esac
}
${f}_options() {
  case "$1" in
${flags}
  esac
}
${f}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path=${quote(name)} word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    if [[ " $(${f}_subcommands "$path") " == *" $word "* ]]; then path="$path $word"; fi
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(${f}_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${f}_subcommands "$path") $(${f}_values "$path")" -- "$cur"))
  fi
}
complete -o default -F ${f} ${name}
`
}

/** A zsh completion script: the bash one through zsh's bashcompinit. */
export const zshScript = (program: Command): string =>
  `# ${program.name()} completion for zsh: source <(${program.name()} completion zsh) in ~/.zshrc.
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(program).split("\n").slice(1).join("\n")}`

/** A fish completion script: each subcommand and option with its description. */
export const fishScript = (program: Command): string => {
  const name = program.name()
  const f = fn(program)
  const all = nodes(program)
  const cases = all.map((n) => `    case ${fishQuote(n.path)}\n      echo ${n.subcommands.map((s) => s.name).join(" ")}`).join("\n")
  const lines = all.flatMap((n) => [
    ...n.subcommands.map((s) => `complete -c ${name} -f -n ${fishQuote(`${f}_at ${fishQuote(n.path)}`)} -a ${fishQuote(s.name)} -d ${fishQuote(s.description)}`),
    ...(n.values.length === 0 ? [] : [`complete -c ${name} -f -n ${fishQuote(`${f}_at ${fishQuote(n.path)}`)} -a ${fishQuote(n.values.join(" "))}`]),
    ...n.options
      .filter((o) => o.flag.startsWith("--"))
      .map((o) => `complete -c ${name} -f -n ${fishQuote(`${f}_at ${fishQuote(n.path)}`)} -l ${fishQuote(o.flag.slice(2))} -d ${fishQuote(o.description)}`)
  ])
  return `# ${name} completion for fish: ${name} completion fish > ~/.config/fish/completions/${name}.fish
function ${f}_subcommands
  switch $argv[1]
${cases}
  end
end
function ${f}_at
  set -l path ${name}
  for word in (commandline -opc)[2..-1]
    string match -q -- '-*' $word; and continue
    contains -- $word (string split ' ' -- (${f}_subcommands $path)); and set path "$path $word"
  end
  test "$path" = "$argv[1]"
end
${lines.join("\n")}
`
}
