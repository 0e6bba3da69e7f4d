#!/usr/bin/env node
import { run } from "./program.js"

// A reader that stops early (`platform deliveries list --json | head`) closes the
// pipe: end quietly, as Unix tools do, instead of an unhandled EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    process.exit(0)
  })
}

const controller = new AbortController()
process.on("SIGINT", () => {
  // A second Ctrl-C exits at once.
  if (controller.signal.aborted) process.exit(130)
  controller.abort()
})

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  stdin: process.stdin.setEncoding("utf8")
})
