import { defineConfig } from "tsup"

export default defineConfig([
  {
    entry: ["src/bin.ts", "src/index.ts"],
    format: ["esm"],
    dts: { entry: "src/index.ts" },
    sourcemap: true,
    clean: true,
    target: "node20",
    platform: "node",
    banner: { js: "" }
  }
])
