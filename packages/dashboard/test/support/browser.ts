import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"

/** Debian's chromium (`apt-get install -y chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** The built console these tests serve: `npm test` builds it first (turbo's test depends on build). */
export const CONSOLE_DIR = fileURLToPath(new URL("../../dist", import.meta.url))

/**
 * Headless Chromium, or a failure that says what is missing: a browser test that
 * cannot find its browser must fail, never pass by skipping.
 */
export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`)
  }
  if (!existsSync(join(CONSOLE_DIR, "index.html"))) {
    throw new Error(`The console is not built (${CONSOLE_DIR}/index.html is missing): run npx turbo run build --filter=@platform/dashboard`)
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })
}

const SHOTS = join(process.env.TEST_RESULTS_DIR ?? fileURLToPath(new URL("../../.test-results", import.meta.url)), "dashboard-screenshots")

/** Keeps a screenshot of the page for a reviewer, under the test results directory. */
export const screenshot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
}
