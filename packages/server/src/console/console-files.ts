import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"

/** One built file of the console, held in memory with its gzip and brotli forms when those are smaller. */
export interface ConsoleFile {
  readonly body: Buffer
  readonly gzip: Buffer | undefined
  readonly brotli: Buffer | undefined
  readonly contentType: string
  /** Hashed by the build (under `assets/`): its name changes with its content, so it may be cached for a year. */
  readonly immutable: boolean
  /** A strong validator for revalidating `index.html`, which is never cached without asking. */
  readonly etag: string
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".map", ".svg", ".txt"])

/**
 * The console's build next to this server: `dist/main.js` is one bundle, so from it
 * `../../dashboard/dist` is `packages/dashboard/dist`. From the sources (the tests)
 * that path does not exist, so the server's own tests run without a console unless
 * they set DASHBOARD_DIR.
 */
export const defaultConsoleDir = (): string => fileURLToPath(new URL("../../dashboard/dist", import.meta.url))

/**
 * Brotli at quality 9, not 11: the console's 270 KB script takes about 0.2 s at 9 and 1.7 s
 * at 11 on a CI machine, paid at every start, for 7% fewer bytes; still smaller than gzip's 9.
 */
const BROTLI = (size: number) => ({
  [constants.BROTLI_PARAM_QUALITY]: 9,
  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  [constants.BROTLI_PARAM_SIZE_HINT]: size
})

const walk = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? walk(path) : entry.isFile() ? [path] : []
  })

/**
 * Reads the built console into memory, keyed by its path under the directory (`index.html`,
 * `assets/index-3f2a.js`), or undefined when there is no build there (an API-only deployment).
 * The whole build is a few hundred kilobytes; held in memory, a request touches no disk, and a
 * path that is not a key (`../`, `%2e%2e`) cannot reach another file.
 */
export const loadConsoleFiles = (dir: string): ReadonlyMap<string, ConsoleFile> | undefined => {
  if (!existsSync(join(dir, "index.html")) || !statSync(dir).isDirectory()) return undefined
  const files = new Map<string, ConsoleFile>()
  for (const path of walk(dir)) {
    const name = relative(dir, path).split(sep).join("/")
    const ext = extname(name).toLowerCase()
    const body = readFileSync(path)
    const compress = COMPRESSIBLE.has(ext) && body.length > 512
    const gzipped = compress ? gzipSync(body, { level: 9 }) : undefined
    const brotli = compress ? brotliCompressSync(body, { params: BROTLI(body.length) }) : undefined
    files.set(name, {
      body,
      gzip: gzipped !== undefined && gzipped.length < body.length ? gzipped : undefined,
      brotli: brotli !== undefined && brotli.length < body.length ? brotli : undefined,
      contentType: TYPES[ext] ?? "application/octet-stream",
      immutable: name.startsWith("assets/"),
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`
    })
  }
  return files
}
