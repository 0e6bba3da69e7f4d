// Sums the vitest JSON reports written under a directory and prints the plain
// closing line CI reads: "N passed, N failed" (with ", N skipped" when any).
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const root = process.argv[2] ?? ".test-results"
const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith(".json")) files.push(path)
  }
}
try { walk(root) } catch { /* no reports */ }

let passed = 0, failed = 0, skipped = 0
for (const file of files) {
  const report = JSON.parse(readFileSync(file, "utf8"))
  passed += report.numPassedTests ?? 0
  failed += (report.numFailedTests ?? 0) + (report.numFailedTestSuites && !report.numFailedTests ? report.numFailedTestSuites : 0)
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`)
process.exit(files.length === 0 || failed > 0 ? 1 : 0)
