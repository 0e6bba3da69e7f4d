import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { AxeResults, ImpactValue, Result } from "axe-core"
import type { Page } from "playwright-core"

/**
 * Accessibility checks of a console page with axe-core, run inside the page.
 *
 * ```ts
 * import { expectNoSeriousViolations } from "./support/accessibility.js"
 * await heading(page, "Templates").waitFor()      // the page's content, not its loading state
 * await expectNoSeriousViolations(page, "templates")
 * ```
 *
 * It fails on every `serious` or `critical` violation (WCAG 2.x A and AA rules and axe's best
 * practices), listing each as `rule-id (impact): help` with the offending elements' selectors,
 * so the failure says what to fix. Minor and moderate findings do not fail it; `axeViolations`
 * returns them all for a test that wants more.
 */

/** axe's own script, read once and injected into each page that is checked. */
let source: string | undefined
const axeSource = () => (source ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"))

/** The impacts that fail `expectNoSeriousViolations`. */
export const FAILING_IMPACTS: ReadonlyArray<ImpactValue> = ["serious", "critical"]

export interface AxeOptions {
  /** Selectors to leave out of the check (a third-party widget); the console has none today. */
  readonly exclude?: ReadonlyArray<string>
  /** Rule ids to turn off, each with a reason in the calling test. */
  readonly disableRules?: ReadonlyArray<string>
}

/** Every violation axe finds on the page as it is now (inject axe, run it on the document). */
export const axeViolations = async (page: Page, options: AxeOptions = {}): Promise<ReadonlyArray<Result>> => {
  // Evaluated rather than added as a <script>: the console's Content-Security-Policy refuses inline scripts.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource())
  const results = await page.evaluate(async ({ exclude, disableRules }) => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<AxeResults> } }).axe
    const context = exclude.length > 0 ? { include: [document], exclude: exclude.map((s) => [s]) } : document
    return axe.run(context, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
      rules: Object.fromEntries(disableRules.map((id) => [id, { enabled: false }])),
      resultTypes: ["violations"]
    })
  }, { exclude: [...(options.exclude ?? [])], disableRules: [...(options.disableRules ?? [])] })
  return results.violations
}

/** One line a violation: the rule, its impact and help, then each element's selector and what axe says about it. */
export const describeViolations = (violations: ReadonlyArray<Result>): string =>
  violations.map((v) => [
    `- ${v.id} (${v.impact}): ${v.help} [${v.helpUrl}]`,
    ...v.nodes.map((n) => `    at ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ").trim() ?? ""}`)
  ].join("\n")).join("\n")

/**
 * Fails when axe finds a serious or critical violation on the page; `name` says which page
 * in the message. Wait for the page's content first (a heading, a table row): a check of the
 * loading state proves little.
 */
export const expectNoSeriousViolations = async (page: Page, name: string, options: AxeOptions = {}): Promise<void> => {
  const serious = (await axeViolations(page, options)).filter((v) => FAILING_IMPACTS.includes(v.impact ?? "minor"))
  if (serious.length > 0) {
    throw new Error(`${name}: ${serious.length} serious or critical accessibility violation(s) at ${page.url()}\n${describeViolations(serious)}`)
  }
}
