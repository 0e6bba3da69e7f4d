/**
 * `npm run screenshots`: a walk through every console page (test/support/console-pages.ts)
 * at 1280 px and 390 px wide, on a real server in sandbox mode with a prepared account (a
 * sandbox channel, webhook subscriptions to a loopback receiver, their deliveries), writing
 * `<page>-1280.png` and `<page>-390.png` to `.test-results/dashboard-screenshots/` at the
 * repository's root (or `$TEST_RESULTS_DIR/dashboard-screenshots/`) for a reviewer.
 *
 * It serves the build in dist/ (`npx turbo run build --filter=@platform/dashboard` first);
 * the database is embedded PGlite unless DATABASE_URL names a PostgreSQL.
 */
import { startRealServer, startReceiver } from "@platform/test-support/real-server"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { CONSOLE_DIR, launchChromium } from "../test/support/browser.js"
import { prepareConsoleAccount } from "../test/support/console-fixture.js"
import { CONSOLE_PAGES, openConsolePage } from "../test/support/console-pages.js"

const WIDTHS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }] as const

const out = join(process.env.TEST_RESULTS_DIR ?? fileURLToPath(new URL("../../../.test-results", import.meta.url)), "dashboard-screenshots")
mkdirSync(out, { recursive: true })

const [server, receiver, browser] = await Promise.all([startRealServer({ DASHBOARD_DIR: CONSOLE_DIR, LOG_LEVEL: "error" }), startReceiver(), launchChromium()])
let failed = 0
try {
  const fixture = await prepareConsoleAccount(server, receiver)
  const [name, value] = server.cookie.split("=", 2) as [string, string]
  for (const viewport of WIDTHS) {
    for (const entry of CONSOLE_PAGES) {
      const context = await browser.newContext({ viewport })
      if (entry.signedOut !== true) await context.addCookies([{ name, value, url: server.baseUrl }])
      const page = await context.newPage()
      const file = join(out, `${entry.name}-${viewport.width}.png`)
      try {
        await openConsolePage(page, server.baseUrl, entry, fixture)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`${file}`)
      } catch (error) {
        failed++
        console.error(`${entry.name} at ${viewport.width} px: ${(error as Error).message}`)
      }
      await context.close()
    }
  }
} finally {
  await Promise.all([browser.close(), server.close(), receiver.close()])
}
console.log(`${CONSOLE_PAGES.length * WIDTHS.length - failed} screenshots in ${out}${failed > 0 ? `, ${failed} pages failed` : ""}`)
process.exit(failed > 0 ? 1 : 0)
