// `npm start`: builds the server and the CLI (turbo, cached; a line of progress per package
// built), then runs the server as a child with SIGTERM and SIGINT passed on, and exits with
// its exit code.
//
// The script used to be `turbo run build ... && node ... main.js`. npm runs a script
// through `sh -c` and sends SIGTERM to that shell only; a shell running an `&&` list
// does not exec its last command, so it died and left the server running, re-parented
// to PID 1, holding the port and the embedded database's lock. This launcher is the
// shell's replacement: it stays the server's parent and passes every stop on.
//
//   node scripts/start.mjs              build, then serve
//   node scripts/start.mjs --no-build   serve what packages/server/dist holds
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { constants } from "node:os"
import { dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const build = !process.argv.slice(2).includes("--no-build")

let child
// The first stop signal received; the server is not started after one.
let stop

// Each signal is passed on once: at a terminal, Ctrl-C reaches this process twice
// (from the terminal and from npm) and the server once by itself; the server stops
// on the first it gets and ignores repeats (bounded by SHUTDOWN_GRACE_MS).
const forwarded = new Set()
const pass = (signal) => {
  stop ??= signal
  if (forwarded.has(signal)) return
  forwarded.add(signal)
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill(signal)
}
process.on("SIGTERM", () => pass("SIGTERM"))
process.on("SIGINT", () => pass("SIGINT"))
// A closed terminal, or a supervisor that hangs up: stop the server as SIGTERM would.
process.on("SIGHUP", () => pass("SIGTERM"))

/**
 * Runs `command` as this process's child (stdio shared, or its output handed to `onLine` line by
 * line); resolves its exit code, 128 + n for signal n.
 */
const run = (command, args, onLine) =>
  new Promise((resolve) => {
    child = spawn(command, args, { cwd: root, stdio: onLine === undefined ? "inherit" : ["inherit", "pipe", "pipe"] })
    if (onLine !== undefined) {
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream, crlfDelay: Infinity }).on("line", onLine)
      }
    }
    child.on("error", (error) => {
      console.error(`npm start: could not run ${command}: ${error.message}`)
      resolve(1)
    })
    child.on("close", (code, signal) => resolve(code ?? 128 + (constants.signals[signal] ?? 0)))
  })

const seconds = (since) => `${Math.round((Date.now() - since) / 1000)} s`

/**
 * The build, with progress: turbo's own output (every task's log) is kept and printed only
 * when the build fails; what is shown is one line per package as turbo finishes building it
 * (`--log-order=grouped` hands a task's log over when the task ends), and a line every 20 s
 * while nothing else is said, because a first build on a fresh clone takes minutes and
 * silence looks like a hang.
 */
const buildWithProgress = async () => {
  const turbo = join(root, "node_modules", ".bin", process.platform === "win32" ? "turbo.cmd" : "turbo")
  const started = Date.now()
  const log = []
  const built = []
  const cached = []
  let said = Date.now()
  const say = (line) => {
    said = Date.now()
    console.log(`npm start: ${line}`)
  }
  say("building the server and the CLI with turbo (5 packages; the first build on a fresh clone takes a few minutes, later starts reuse turbo's cache)")
  const ticker = setInterval(() => {
    if (Date.now() - said < 20_000) return
    const done = built.length + cached.length
    say(`still building (${seconds(started)} so far; ${done === 0 ? "no package done yet" : `${done} done`})`)
  }, 1_000)
  const code = await run(existsSync(turbo) ? turbo : "turbo", [
    "run",
    "build",
    "--filter=@platform/server",
    "--filter=@platform/cli",
    "--output-logs=new-only",
    "--log-order=grouped"
  ], (raw) => {
    const line = raw.replace(/\x1b\[[0-9;]*m/g, "")
    log.push(line)
    const task = /^(@platform\/[\w-]+):build: cache (hit|miss)/.exec(line)
    if (task === null) return
    if (task[2] === "hit") cached.push(task[1])
    else {
      built.push(task[1])
      say(`built ${task[1]} (${seconds(started)})`)
    }
  })
  clearInterval(ticker)
  if (code !== 0 && stop === undefined) {
    for (const line of log) console.error(line)
    console.error(`npm start: the build failed after ${seconds(started)} (exit code ${code}); its output is above`)
  } else if (code === 0) {
    const reused = cached.length === 0 ? "" : `, ${cached.length} from turbo's cache`
    say(built.length === 0
      ? "nothing to build (turbo's cache holds every package); starting the server"
      : `built in ${seconds(started)} (${built.length} package${built.length === 1 ? "" : "s"} built${reused}); starting the server`)
  }
  return code
}

if (build) {
  const code = await buildWithProgress()
  // Stopped while building: nothing to serve, and stopping is what was asked.
  if (stop !== undefined) process.exit(0)
  if (code !== 0) process.exit(code)
}
if (stop !== undefined) process.exit(0)

// --max-semi-space-size=32: see packages/server/README.md (young generation room).
process.exit(await run(process.execPath, ["--max-semi-space-size=32", join(root, "packages", "server", "dist", "main.js")]))
