import { mergeConfig } from "vitest/config"
import { packageConfig } from "../../vitest.shared.js"

/*
 * A browser page's first paint after a navigation can take seconds on a loaded CI machine
 * (the server, Postgres and Chromium share its cores): `expect.poll` waits up to 10 s for a
 * page to show what it must, instead of vitest's default 1 s. What is expected is unchanged.
 */
export default mergeConfig(packageConfig("dashboard"), { test: { expect: { poll: { timeout: 10_000 } } } })
