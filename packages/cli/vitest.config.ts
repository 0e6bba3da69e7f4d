import { defineConfig } from "vitest/config"
import { reporters } from "../../vitest.shared.js"
import { fileURLToPath } from "node:url"

export default defineConfig({
  resolve: {
    alias: {
      "@platform/shared": fileURLToPath(new URL("../shared/src/index.ts", import.meta.url)),
      "@platform/sdk": fileURLToPath(new URL("../sdk/src/index.ts", import.meta.url)),
      "@platform/webhook-verify/testing": fileURLToPath(new URL("../webhook-verify/src/testing.ts", import.meta.url)),
      "@platform/webhook-verify": fileURLToPath(new URL("../webhook-verify/src/index.ts", import.meta.url))
    }
  },
  test: {
    reporters: reporters("cli"),
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
