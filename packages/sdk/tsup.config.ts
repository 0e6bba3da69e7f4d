import { readFileSync } from "node:fs"
import { defineConfig } from "tsup"

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string }

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    sourcemap: true,
    clean: true,
    target: "node20",
    // VERSION (src/core/request.ts) is package.json's, so the two cannot differ.
    define: { __SDK_VERSION__: JSON.stringify(version) },
    // The SDK's values from @platform/shared (EVENT_TYPES) are bundled: they are plain
    // data in modules that import nothing, so neither Effect nor the schemas ship.
    noExternal: ["@platform/shared"]
  },
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    // The declarations keep importing @platform/shared (a dev dependency, which tsup would
    // otherwise inline with its Effect schemas); scripts/inline-shared-types.mjs then writes
    // those types out and drops the import.
    dts: { only: true },
    external: ["@platform/shared"]
  }
])
