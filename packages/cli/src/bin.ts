#!/usr/bin/env node
import { run } from "./program.js"

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
