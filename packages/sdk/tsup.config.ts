import { defineConfig } from "tsup"

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    // The SDK's values from @platform/shared (EVENT_TYPES) are bundled: they are plain
    // data in modules that import nothing, so neither Effect nor the schemas ship.
    noExternal: ["@platform/shared"]
  }
])
