import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/*
 * Every ```ts block of README.md compiles against the package's source, as a receiver author would paste it:
 * each block is its own module (top-level await allowed); the names the prose stands for are declared in the
 * prelude below, and nothing else is.
 */

const pkg = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(pkg, "README.md"), "utf8")
const blocks = [...readme.matchAll(/^```ts[^\n]*\n([\s\S]*?)^```/gm)].map((m) => ({
  line: readme.slice(0, m.index).split("\n").length,
  code: m[1]!
}))

const PRELUDE = `
declare global {
  /** The receiver's own work queue (Express example). */
  const queue: { push(event: unknown): void }
  /** The receiver's own persistence (Fetch example). */
  function markTemplate(templateId: number, status: string): Promise<void>
  /** The subscription secret and an envelope (testing example). */
  const secret: string
  const envelope: unknown
}
export {}
`

const compile = (): ReadonlyArray<string> => {
  const dir = join(pkg, "readme-blocks")
  const files = new Map<string, string>([[join(dir, "prelude.d.ts"), PRELUDE]])
  blocks.forEach((block, i) => files.set(join(dir, `line-${block.line}-${i}.ts`), `${block.code}\nexport {}\n`))
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
    baseUrl: pkg,
    paths: {
      "@platform/webhook-verify": ["src/index.ts"],
      "@platform/webhook-verify/testing": ["src/testing.ts"],
      "@platform/shared": ["../shared/src/index.ts"]
    }
  }
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name)
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name)
  host.getSourceFile = (name, version, ...rest) => {
    const text = files.get(name)
    return text === undefined ? getSourceFile.call(host, name, version, ...rest) : ts.createSourceFile(name, text, version)
  }
  const program = ts.createProgram([...files.keys()], options, host)
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && files.has(d.file.fileName))
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0)
      return `${d.file!.fileName.slice(dir.length + 1)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
    })
}

describe("README.md", () => {
  it("has TypeScript examples", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5)
  })

  it("every TypeScript example compiles against the package", () => {
    expect(compile()).toEqual([])
  }, 60_000)
})
