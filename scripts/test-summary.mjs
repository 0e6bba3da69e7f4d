// Sums the vitest JSON reports written under a directory and prints the plain
// closing line CI reads: "N passed, N failed" (with ", N skipped" when any).
// Above it, every failed test by file and name with the first line of its
// error, and every package whose suite wrote no report, so the tail of a CI
// log says what went wrong without scrolling back through it.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const root = process.argv[2] ?? ".test-results"
const expected = (process.argv[3] ?? "").split(",").filter(Boolean)
const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith(".json")) files.push(path)
  }
}
try { walk(root) } catch { /* no reports */ }

const firstLine = (messages) => String(messages?.[0] ?? "").split("\n").find((l) => l.trim()) ?? ""
let passed = 0, failed = 0, skipped = 0
const failures = []
for (const file of files) {
  const report = JSON.parse(readFileSync(file, "utf8"))
  const run = relative(root, file)
  passed += report.numPassedTests ?? 0
  failed += (report.numFailedTests ?? 0) + (report.numFailedTestSuites && !report.numFailedTests ? report.numFailedTestSuites : 0)
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
  for (const suite of report.testResults ?? []) {
    const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === "failed")
    for (const t of failedTests) failures.push(`${run}: ${relative(process.cwd(), suite.name)} > ${t.fullName}\n    ${firstLine(t.failureMessages).slice(0, 300)}`)
    if (suite.status === "failed" && failedTests.length === 0) failures.push(`${run}: ${relative(process.cwd(), suite.name)} (the file failed to run)\n    ${String(suite.message ?? "").split("\n")[0].slice(0, 300)}`)
  }
}
const missing = expected.filter((name) => !files.some((f) => relative(root, f).split(/[\\/]/).join("/") === `${name}.json`))
if (failures.length > 0) console.log(`failed:\n  ${failures.join("\n  ")}`)
if (missing.length > 0) console.log(`no report from: ${missing.join(", ")}`)
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`)
process.exit(files.length === 0 || failed > 0 || missing.length > 0 ? 1 : 0)
