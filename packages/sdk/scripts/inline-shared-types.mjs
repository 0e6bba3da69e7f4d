// The SDK's types are derived from the @platform/shared schemas (`typeof X.Type`), and
// declarations that point there would make every SDK user install shared and, through it,
// effect and @effect/platform. After tsup, every type that names a shared import is
// written out as the structural type the compiler resolves it to, and the import is dropped,
// so the published declarations need nothing but ofetch. Then they are checked to import
// only the package's dependencies and compiled under strict, to prove they stand on their own.
import { readFileSync, writeFileSync } from "node:fs"
import ts from "typescript"

const SHARED = "@platform/shared"
const files = ["dist/index.d.ts", "dist/index.d.cts"]
const options = {
  strict: true,
  exactOptionalPropertyTypes: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: [],
  noEmit: true
}
const flags =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.InTypeAlias |
  ts.TypeFormatFlags.UseStructuralFallback |
  ts.TypeFormatFlags.MultilineObjectLiterals

const inline = (program, file) => {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  const sharedNames = new Set()
  const edits = []
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || statement.moduleSpecifier.text !== SHARED) continue
    for (const element of statement.importClause?.namedBindings?.elements ?? []) sharedNames.add(element.name.text)
    edits.push({ start: statement.getFullStart(), end: statement.getEnd(), text: "" })
  }
  const namesShared = (node) =>
    (ts.isTypeQueryNode(node) && sharedNames.has(leftmost(node.exprName))) ||
    (ts.isTypeReferenceNode(node) && sharedNames.has(leftmost(node.typeName)))
  const visit = (node) => {
    if (namesShared(node)) {
      const type = checker.getTypeFromTypeNode(node)
      const text = checker.typeToString(type, undefined, flags)
      edits.push({ start: node.getStart(source), end: node.getEnd(), text: `(${text})` })
      return
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  let text = source.getFullText()
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end)
  if (text.includes(SHARED + "'") || text.includes(SHARED + '"')) throw new Error(`${file} still imports ${SHARED}`)
  return text
}

const leftmost = (name) => (ts.isIdentifier(name) ? name.text : leftmost(name.left))

/** Every module the declarations import (statements and `import("...")` types). */
const importsOf = (source) => {
  const found = new Set()
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      found.add(node.moduleSpecifier.text)
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) found.add(node.argument.literal.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The declarations may import only the package's own dependencies (a user has nothing else installed). */
const importsOnlyDependencies = () => {
  const { dependencies = {} } = JSON.parse(readFileSync("package.json", "utf8"))
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
    const foreign = [...importsOf(source)].filter((m) => !m.startsWith(".") && !(m in dependencies))
    if (foreign.length > 0) throw new Error(`${file} imports ${foreign.join(", ")}, which an SDK user does not install`)
  }
}

const standsAlone = () => {
  const program = ts.createProgram(files, { ...options, skipLibCheck: false })
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file === undefined || files.some((f) => d.file.fileName.endsWith(f)))
  if (diagnostics.length > 0) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => "\n" }
    throw new Error(`the SDK's declarations do not compile on their own:\n${ts.formatDiagnostics(diagnostics.slice(0, 10), host)}`)
  }
}

const program = ts.createProgram(files, options)
const inlined = files.map((file) => inline(program, file))
files.forEach((file, i) => writeFileSync(file, inlined[i]))
importsOnlyDependencies()
standsAlone()
console.log(`declarations: ${files.map((f) => `${f} ${Math.round(readFileSync(f).length / 1024)} KB`).join(", ")}, no ${SHARED} import`)
