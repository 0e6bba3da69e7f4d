import { defineConfig } from "vitest/config"
import { reporters } from "../../vitest.shared.js"

export default defineConfig({
  test: {
    reporters: reporters("webhook-verify"),
    include: ["test/**/*.test.ts"],
    coverage: {
      provider: "v8",
      include: ["src/**/*.ts"],
      thresholds: { lines: 95 }
    }
  }
})
