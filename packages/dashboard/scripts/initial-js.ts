import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

/** The console's budget for the JavaScript a first visit loads, gzipped (issue 40: "at most 200 KB"). */
export const INITIAL_JS_BUDGET = 200 * 1024

export interface InitialJavaScript {
  /** The entry chunk and every chunk it imports statically, as paths under dist/. */
  readonly files: ReadonlyArray<string>
  readonly bytes: number
  readonly gzipBytes: number
}

const BASE = "/dashboard/"

/** `/dashboard/assets/x.js` → `assets/x.js`. */
const underDist = (src: string) => (src.startsWith(BASE) ? src.slice(BASE.length) : src.replace(/^\//, ""))

/**
 * What a browser loads before the console can show anything: the module scripts and module
 * preloads of `index.html`, and, recursively, every chunk those import statically (Vite splits
 * shared code into chunks; a dynamic `import()` is loaded later and is not counted). Each file
 * is gzipped at level 9, as the server sends it (packages/server/src/console/console-files.ts).
 */
export const initialJavaScript = (dist: string): InitialJavaScript => {
  const index = join(dist, "index.html")
  if (!existsSync(index)) throw new Error(`No build at ${dist}: run npx turbo run build --filter=@platform/dashboard`)
  const html = readFileSync(index, "utf8")
  const pending = [
    ...[...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((m) => underDist(m[1]!)),
    ...[...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => underDist(m[1]!))
  ]
  const files: Array<string> = []
  let bytes = 0
  let gzipBytes = 0
  while (pending.length > 0) {
    const file = pending.shift()!
    if (files.includes(file)) continue
    files.push(file)
    const code = readFileSync(join(dist, file))
    bytes += code.length
    gzipBytes += gzipSync(code, { level: 9 }).length
    // Static imports only (`import{a}from"./chunk.js"`, `import"./chunk.js"`), never `import("./lazy.js")`.
    for (const m of code.toString("utf8").matchAll(/\bimport\s*(?:[\w$*{},\s]*?from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g)) {
      pending.push(join(file, "..", m[1]!).split("\\").join("/"))
    }
  }
  return { files, bytes, gzipBytes }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

/** `npm run size`: prints the figure and fails over the budget. */
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dist = fileURLToPath(new URL("../dist", import.meta.url))
  const js = initialJavaScript(dist)
  console.log(`initial JavaScript: ${js.files.join(", ")}: ${kb(js.bytes)}, ${kb(js.gzipBytes)} gzipped (budget ${kb(INITIAL_JS_BUDGET)})`)
  if (js.gzipBytes > INITIAL_JS_BUDGET) {
    console.error("over the budget")
    process.exit(1)
  }
}
