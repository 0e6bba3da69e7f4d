import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { reporters } from "../../vitest.shared.js"

export default defineConfig({
  resolve: {
    alias: { "@platform/shared": fileURLToPath(new URL("../shared/src/index.ts", import.meta.url)) }
  },
  test: {
    reporters: reporters("webhook-verify"),
    include: ["test/**/*.test.ts"],
    typecheck: {
      enabled: true,
      include: ["test/types-match-shared.test.ts"],
      tsconfig: "./tsconfig.typecheck.json"
    },
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      thresholds: { lines: 95 }
    }
  }
})
