import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { INITIAL_JS_BUDGET, initialJavaScript } from "../scripts/initial-js.js"
import { CONSOLE_DIR } from "./support/browser.js"

describe("the console's weight", () => {
  it("its initial JavaScript (the entry and its static imports) is at most 200 KB gzipped", () => {
    const js = initialJavaScript(CONSOLE_DIR)
    expect(js.files.length).toBeGreaterThanOrEqual(1)
    expect(js.files.every((f) => f.startsWith("assets/") && f.endsWith(".js"))).toBe(true)
    // The figure, for the record (README "Built").
    console.log(`initial JavaScript: ${js.files.join(", ")}: ${(js.gzipBytes / 1024).toFixed(1)} KB gzipped`)
    expect(js.gzipBytes).toBeGreaterThan(0)
    expect(js.gzipBytes).toBeLessThanOrEqual(INITIAL_JS_BUDGET)
  })

  it("counts the chunks the entry imports statically (preloaded or not), never those it loads with import()", () => {
    const dist = mkdtempSync(join(tmpdir(), "console-size-"))
    mkdirSync(join(dist, "assets"))
    writeFileSync(join(dist, "index.html"), `<script type="module" crossorigin src="/dashboard/assets/index-a.js"></script><link rel="modulepreload" crossorigin href="/dashboard/assets/react-b.js">`)
    writeFileSync(join(dist, "assets", "index-a.js"), `import{r as e}from"./react-b.js";import"./shared-c.js";const l=()=>import("./lazy-d.js");`)
    writeFileSync(join(dist, "assets", "react-b.js"), `export const r=1;import{x}from"./shared-c.js"`)
    writeFileSync(join(dist, "assets", "shared-c.js"), "export const x=2")
    writeFileSync(join(dist, "assets", "lazy-d.js"), "x".repeat(100_000))
    const js = initialJavaScript(dist)
    expect(js.files).toEqual(["assets/index-a.js", "assets/react-b.js", "assets/shared-c.js"])
    expect(js.bytes).toBeLessThan(1000)
  })
})
