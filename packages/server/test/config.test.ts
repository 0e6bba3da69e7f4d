import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { join } from "node:path"
import { AppConfig } from "../src/config.js"

/** AppConfig read from exactly these variables (no test defaults). */
const configOf = (env: Record<string, string>) =>
  AppConfig.pipe(
    Effect.provide(AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))
  )

const production = { NODE_ENV: "production", ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"), SESSION_SECRET: "s".repeat(32) }

describe("AppConfig", () => {
  it.effect.each([
    ["a plain start (sandbox, development)", {}, true, true],
    ["UPSTREAM=meta", { UPSTREAM: "meta" }, false, false],
    ["NODE_ENV=production", production, false, false],
    ["the sandbox with UNSAFE_ALLOW_LOCAL_TARGETS=0", { UNSAFE_ALLOW_LOCAL_TARGETS: "0" }, false, false],
    ["the sandbox with UNSAFE_ALLOW_LOCAL_TARGETS=1", { UNSAFE_ALLOW_LOCAL_TARGETS: "1" }, true, false],
    ["UPSTREAM=meta with UNSAFE_ALLOW_LOCAL_TARGETS=1", { UPSTREAM: "meta", UNSAFE_ALLOW_LOCAL_TARGETS: "1" }, true, false]
  ] as const)("%s", ([, env, allowed, byDefault]) =>
    Effect.gen(function*() {
      const config = yield* configOf(env)
      expect(config.unsafeAllowLocalTargets).toBe(allowed)
      expect(config.localTargetsByDefault).toBe(byDefault)
    }))

  it.effect("UNSAFE_ALLOW_LOCAL_TARGETS=1 with NODE_ENV=production is refused at start-up", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(configOf({ ...production, UNSAFE_ALLOW_LOCAL_TARGETS: "1" }))
      expect(String(error)).toContain("UNSAFE_ALLOW_LOCAL_TARGETS")
    }))

  it.effect.each([
    ["nothing set: ./.data/pglite", {}, join(".data", "pglite"), "./.data"],
    ["DATA_DIR alone moves the database under it", { DATA_DIR: "./elsewhere" }, join("elsewhere", "pglite"), "./elsewhere"],
    ["PGLITE_DIR wins over DATA_DIR", { DATA_DIR: "/tmp/d", PGLITE_DIR: "/tmp/db" }, "/tmp/db", "/tmp/d"],
    ["an empty PGLITE_DIR is unset", { DATA_DIR: "/tmp/d", PGLITE_DIR: "" }, "/tmp/d/pglite", "/tmp/d"]
  ] as const)("%s", ([, env, pgliteDir, dataDir]) =>
    Effect.gen(function*() {
      const config = yield* configOf(env)
      expect(config.pgliteDir).toBe(pgliteDir)
      expect(config.dataDir).toBe(dataDir)
    }))
})
