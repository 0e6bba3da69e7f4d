// `npm start`: builds the server and the CLI (turbo, cached), then runs the server as a
// child with SIGTERM and SIGINT passed on, and exits with its exit code.
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

/** Runs `command` as this process's child (stdio shared); resolves its exit code, 128 + n for signal n. */
const run = (command, args) =>
  new Promise((resolve) => {
    child = spawn(command, args, { cwd: root, stdio: "inherit" })
    child.on("error", (error) => {
      console.error(`npm start: could not run ${command}: ${error.message}`)
      resolve(1)
    })
    child.on("exit", (code, signal) => resolve(code ?? 128 + (constants.signals[signal] ?? 0)))
  })

if (build) {
  const turbo = join(root, "node_modules", ".bin", process.platform === "win32" ? "turbo.cmd" : "turbo")
  const code = await run(existsSync(turbo) ? turbo : "turbo", [
    "run",
    "build",
    "--filter=@platform/server",
    "--filter=@platform/cli",
    "--output-logs=errors-only"
  ])
  // Stopped while building: nothing to serve, and stopping is what was asked.
  if (stop !== undefined) process.exit(0)
  if (code !== 0) process.exit(code)
}
if (stop !== undefined) process.exit(0)

// --max-semi-space-size=32: see packages/server/README.md (young generation room).
process.exit(await run(process.execPath, ["--max-semi-space-size=32", join(root, "packages", "server", "dist", "main.js")]))
