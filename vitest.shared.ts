import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

/**
 * Reporters for every package: the default one, plus a JSON report under
 * TEST_RESULTS_DIR when CI sets it, which .ci/run sums into its closing line.
 */
export const reporters = (name: string): Array<string | [string, Record<string, unknown>]> => {
  const dir = process.env.TEST_RESULTS_DIR
  return dir ? ["default", ["json", { outputFile: `${dir}/${name}.json` }]] : ["default"]
}

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The workspace packages resolved to their sources, so tests never need a prior build of a sibling. */
export const workspaceAliases = {
  "@platform/shared": source("./packages/shared/src/index.ts"),
  "@platform/sdk": source("./packages/sdk/src/index.ts"),
  "@platform/webhook-verify/testing": source("./packages/webhook-verify/src/testing.ts"),
  "@platform/webhook-verify": source("./packages/webhook-verify/src/index.ts")
}

/**
 * The SDK's version, which its build defines as `__SDK_VERSION__` (packages/sdk/tsup.config.ts);
 * defined here too, since every package's tests run the SDK from source.
 */
const sdkVersion = (JSON.parse(readFileSync(source("./packages/sdk/package.json"), "utf8")) as { version: string }).version

/** The vitest config of a package: its tests under test/, workspace aliases, generous timeouts for I/O tests. */
export const packageConfig = (name: string) =>
  defineConfig({
    resolve: { alias: workspaceAliases },
    define: { __SDK_VERSION__: JSON.stringify(sdkVersion) },
    test: {
      reporters: reporters(name),
      include: ["test/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000
    }
  })
