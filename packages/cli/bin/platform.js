#!/usr/bin/env node
// The `platform` command: runs the built CLI (dist/bin.js). This launcher is committed so that
// `npm ci` links `platform` into node_modules/.bin even before the first build, which
// writes dist/; without a build it says how to make one instead of failing on a missing file.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = new URL("../dist/bin.js", import.meta.url)
if (!existsSync(fileURLToPath(built))) {
  process.stderr.write(
    "platform: the CLI is not built yet (packages/cli/dist is missing).\n" +
      "Run `npm start` (builds the server and the CLI, then serves) or `npm run build` at the repository root first.\n"
  )
  process.exit(1)
}
await import(built.href)
