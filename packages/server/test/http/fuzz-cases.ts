import { FastCheck as fc } from "effect"

/*
 * The request generator of fuzz.test.ts: for each operation of the OpenAPI document, a
 * bounded set of malformed and edge-case requests derived from its parameters and body
 * schema. Every choice comes from fast-check's seeded sampling, so one seed gives the
 * same requests on every run.
 */

type Schema = { readonly [key: string]: any }

export interface Operation {
  readonly method: string
  /** The document's path template, `/platform/v1/templates/{template_id}`. */
  readonly template: string
  readonly spec: Schema
}

export interface FuzzRequest {
  readonly label: string
  readonly method: string
  /** Path and query string, already encoded. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array<ArrayBuffer>
}

/** What the generator knows of the test's own rows: ids that exist, by parameter or field name. */
export interface FuzzContext {
  readonly seed: number
  readonly ids: (name: string, template: string) => string | undefined
}

const METHODS = ["get", "post", "put", "patch", "delete"]

/** Every operation of the document, in document order. */
export const operationsOf = (doc: Schema): ReadonlyArray<Operation> =>
  Object.entries(doc.paths as Record<string, Schema>).flatMap(([template, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => ({ method: m.toUpperCase(), template, spec: item[m] as Schema }))
  )

const hash = (text: string) => {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** One value of `arb` for this seed and salt: the same on every run. */
const sampleWith = <A>(arb: fc.Arbitrary<A>, seed: number, salt: string): A =>
  fc.sample(arb, { seed: (seed ^ hash(salt)) | 0, numRuns: 1 })[0]!

const resolve = (doc: Schema, schema: Schema | undefined): Schema | undefined => {
  let s = schema
  for (let i = 0; s?.$ref !== undefined && i < 20; i++) {
    s = (s.$ref as string).replace(/^#\//, "").split("/").reduce((node: any, key) => node?.[key], doc)
  }
  return s
}

const typeOf = (doc: Schema, schema: Schema | undefined): string | undefined => {
  const s = resolve(doc, schema)
  if (s === undefined) return undefined
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== "null")
  if (typeof s.type === "string") return s.type
  const first = (s.anyOf ?? s.oneOf)?.[0]
  return first === undefined ? undefined : typeOf(doc, first)
}

/** Values that a JSON Schema accepts (or nearly: patterns are ECMAScript regexes), small ones. */
export const arbitraryOf = (doc: Schema, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> => {
  const s = resolve(doc, schema)
  if (s === undefined || depth > 8) return fc.constant(null)
  if (s.const !== undefined) return fc.constant(s.const)
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum)
  const union = s.anyOf ?? s.oneOf
  if (Array.isArray(union) && union.length > 0) return fc.oneof(...union.map((u: Schema) => arbitraryOf(doc, u, depth + 1)))
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return arbitraryOf(doc, s.allOf[0], depth + 1)
  switch (typeOf(doc, s)) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, Schema>
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbitraryOf(doc, v, depth + 1)]))
      const required = ((s.required ?? []) as Array<string>).filter((k) => k in props)
      return fc.record(model, { requiredKeys: required })
    }
    case "array": {
      const min = s.minItems ?? 0
      return fc.array(arbitraryOf(doc, s.items, depth + 1), { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)) })
    }
    case "string": {
      if (typeof s.pattern === "string") {
        try {
          return fc.stringMatching(new RegExp(s.pattern, "u")).filter((x) => x.length <= (s.maxLength ?? 200))
        } catch {
          // a pattern this engine does not take: any short string
        }
      }
      const min = s.minLength ?? 0
      return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(s.maxLength ?? 16, 16)) })
    }
    case "integer":
      return fc.integer({ min: s.minimum ?? -3, max: s.maximum ?? 3000 })
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true })
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** A JSON text whose placeholder string `"\u0001RAW"` is replaced by raw JSON (numbers beyond a double, deep nesting). */
const RAW = "\u0001RAW"
const withRaw = (value: unknown, raw: string) => JSON.stringify(value).replace(JSON.stringify(RAW), raw)

const WRONG: Record<string, ReadonlyArray<unknown>> = {
  string: [12345, true, {}, [], null],
  integer: ["12", 1.5, "abc", true, {}, null],
  number: ["1.5", {}, [], null],
  boolean: ["true", 1, {}, null],
  object: ["x", [], 7, null],
  array: [{}, "x", 7, null]
}

const EDGE_INTEGERS = ["-1", "0", "1e400", "9007199254740993", "-9223372036854775809", "123456789012345678901234567890", "1.0e2"]

/** Path segment and query values no route expects. */
const ODD_SEGMENTS = ["abc", "-1", "99999999999999999999999", "%00", "%ED%A0%80", "x".repeat(3000), "987654321", "%2F..%2F"]

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels)

const jsonHeaders = { "content-type": "application/json" }

const fillPath = (template: string, values: Record<string, string>) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "1")

const withQuery = (path: string, query: ReadonlyArray<readonly [string, string]>) =>
  query.length === 0 ? path : `${path}?${query.map(([k, v]) => `${k}=${v}`).join("&")}`

const stringFields = (doc: Schema, props: Record<string, Schema>) =>
  Object.keys(props).filter((k) => typeOf(doc, props[k]) === "string")

const multipartBody = (boundary: string, parts: ReadonlyArray<{ name: string; value: string; filename?: string; type?: string }>) =>
  parts.map((p) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}\r\n` +
    (p.type === undefined ? "" : `Content-Type: ${p.type}\r\n`) + `\r\n${p.value}\r\n`
  ).join("") + `--${boundary}--\r\n`

/**
 * The requests for one operation: its path parameters replaced by odd segments, its query
 * parameters given odd values, unknown and repeated parameters, declared headers oversized,
 * and (for a body) samples of the schema mutated field by field, raw texts that are not the
 * schema or not JSON, deep nesting, and the wrong content types.
 */
export const casesFor = (doc: Schema, operation: Operation, ctx: FuzzContext): ReadonlyArray<FuzzRequest> => {
  const { method, spec, template } = operation
  const seed = ctx.seed ^ hash(`${method} ${template}`)
  const params = ((spec.parameters ?? []) as Array<Schema>).map((p) => resolve(doc, p)!)
  const pathParams = params.filter((p) => p.in === "path")
  const queryParams = params.filter((p) => p.in === "query")
  const headerParams = params.filter((p) => p.in === "header")
  const existing = Object.fromEntries(pathParams.map((p) => [p.name, ctx.ids(p.name, template) ?? "1"]))
  const basePath = fillPath(template, existing)
  const out: Array<FuzzRequest> = []
  const add = (label: string, r: Omit<FuzzRequest, "label" | "method" | "headers"> & { headers?: Record<string, string> }) =>
    out.push({ label, method, headers: r.headers ?? {}, path: r.path, ...(r.body === undefined ? {} : { body: r.body }) })

  const content = (spec.requestBody?.content ?? {}) as Record<string, Schema>
  const jsonSchema = resolve(doc, content["application/json"]?.schema)
  const validBody = jsonSchema === undefined ? undefined : sampleWith(arbitraryOf(doc, jsonSchema), seed, "valid")
  const withIds = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return value
    return Object.fromEntries(Object.entries(value).map(([k, v]) => {
      const id = ctx.ids(k, template)
      return [k, id !== undefined && typeof v === "number" ? Number(id) : v]
    }))
  }
  const bodyText = validBody === undefined ? undefined : JSON.stringify(withIds(validBody))
  const plain = bodyText === undefined ? {} : { body: bodyText, headers: jsonHeaders }

  // Path parameters: each odd segment in place of each one (the others exist).
  for (const p of pathParams) {
    for (const segment of ODD_SEGMENTS) {
      add(`path ${p.name}=${segment.slice(0, 20)}`, { path: fillPath(template, { ...existing, [p.name]: segment }), ...plain })
    }
  }

  // Query parameters: a sampled valid value, odd values, unknown and repeated parameters.
  const validQuery = queryParams.map((p) => [p.name, encodeURIComponent(String(sampleWith(arbitraryOf(doc, p.schema), seed, `q:${p.name}`)))] as const)
  add("query: sampled values", { path: withQuery(basePath, validQuery) })
  for (const p of queryParams) {
    const odd = sampleWith(fc.constantFrom("abc", "-1", "%00", "%ED%A0%80", "1e400", "99999999999999999999", "", "x".repeat(5000), "true", "%5B%5D"), seed, `odd:${p.name}`)
    add(`query ${p.name}=${odd.slice(0, 20)}`, { path: withQuery(basePath, [[p.name, odd]]) })
    add(`query ${p.name} twice`, { path: withQuery(basePath, [[p.name, "1"], [p.name, "2"]]) })
  }
  add("query: unknown parameter", { path: withQuery(basePath, [["zz_unknown", "1"]]) })
  add("query: NUL in an unknown parameter's name", { path: withQuery(basePath, [["a%00b", "1"]]) })

  for (const h of headerParams) {
    add(`header ${h.name} of 300 characters`, { path: basePath, ...plain, headers: { ...plain.headers, [h.name]: "k".repeat(300) } })
    add(`header ${h.name} of 8000 characters`, { path: basePath, ...plain, headers: { ...plain.headers, [h.name]: "k".repeat(8000) } })
    add(`header ${h.name} empty`, { path: basePath, ...plain, headers: { ...plain.headers, [h.name]: "" } })
  }

  if (spec.requestBody === undefined) {
    if (method === "GET") return out
    // A body the route does not take, and one that is not JSON.
    add("unexpected JSON body", { path: basePath, body: "{\"zz\":1}", headers: jsonHeaders })
    add("unexpected malformed body", { path: basePath, body: "{", headers: jsonHeaders })
    return out
  }

  if (jsonSchema !== undefined) {
    const props = (typeOf(doc, jsonSchema) === "object" ? resolve(doc, jsonSchema)!.properties ?? {} : {}) as Record<string, Schema>
    const required = ((resolve(doc, jsonSchema)!.required ?? []) as Array<string>).filter((k) => k in props)
    const base = (withIds(validBody) ?? {}) as Record<string, unknown>
    const keys = Object.keys(props)
    const some = (salt: string, n: number, from: ReadonlyArray<string>) =>
      from.length === 0 ? [] : sampleWith(fc.shuffledSubarray([...from], { minLength: Math.min(n, from.length), maxLength: Math.min(n, from.length) }), seed, salt)
    const body = (label: string, text: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = jsonHeaders) =>
      add(label, { path: basePath, body: text, headers })

    body("body: a sample of the schema", bodyText!)
    body("body: another sample", JSON.stringify(withIds(sampleWith(arbitraryOf(doc, jsonSchema), seed, "valid2"))))
    body("body: {}", "{}")
    for (const k of some("missing", 2, required)) {
      const { [k]: _, ...rest } = base
      body(`body: without required ${k}`, JSON.stringify(rest))
    }
    body("body: an extra field", JSON.stringify({ ...base, zz_unknown: 1 }))
    for (const k of some("wrong", 4, keys)) {
      const pool = WRONG[typeOf(doc, props[k]) ?? "string"] ?? WRONG.string!
      const wrong = sampleWith(fc.constantFrom(...pool), seed, `wrong:${k}`)
      body(`body.${k}: wrong type (${JSON.stringify(wrong)})`, JSON.stringify({ ...base, [k]: wrong }))
    }
    const strings = stringFields(doc, props)
    for (const k of some("big", 2, strings)) body(`body.${k}: 100,000 characters`, JSON.stringify({ ...base, [k]: "x".repeat(100_000) }))
    for (const k of some("surrogate", 2, strings)) body(`body.${k}: a lone surrogate`, JSON.stringify({ ...base, [k]: "a\ud800b" }))
    for (const k of some("nul", 2, strings)) body(`body.${k}: U+0000`, JSON.stringify({ ...base, [k]: "a\u0000b" }))
    const numbers = keys.filter((k) => ["integer", "number"].includes(typeOf(doc, props[k]) ?? ""))
    for (const k of some("huge", 3, numbers)) {
      const raw = sampleWith(fc.constantFrom(...EDGE_INTEGERS), seed, `huge:${k}`)
      body(`body.${k}: ${raw}`, withRaw({ ...base, [k]: RAW }, raw))
    }
    const arrays = keys.filter((k) => typeOf(doc, props[k]) === "array")
    for (const k of some("long", 1, arrays)) body(`body.${k}: 10,000 items`, JSON.stringify({ ...base, [k]: Array.from({ length: 10_000 }, () => 1) }))
    const nestIn = keys[0] ?? "zz"
    body("body: nested 70 levels", withRaw({ ...base, [nestIn]: RAW }, deep(70)))
    body("body: nested 100,000 levels", withRaw({ ...base, [nestIn]: RAW }, deep(100_000)))
    body("body: a lone surrogate in an unknown key", "{\"\\ud800\":1}")
    body("body: U+0000 in a key", "{\"a\\u0000\":1}")
  }
  const sample = bodyText ?? "{}"
  for (const [label, text] of [
    ["empty body", ""],
    ["malformed JSON", "{\"a\":"],
    ["trailing comma", "{\"a\":1,}"],
    ["JSON null", "null"],
    ["a JSON array", "[]"],
    ["a JSON string", "\"x\""],
    ["a JSON number", "1e400"]
  ] as const) add(`body: ${label}`, { path: basePath, body: text, headers: jsonHeaders })
  add("body: bytes that are not UTF-8", { path: basePath, body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), headers: jsonHeaders })
  add("content type text/plain", { path: basePath, body: sample, headers: { "content-type": "text/plain" } })
  add("content type form-urlencoded", { path: basePath, body: "a=b&channel_id=1", headers: { "content-type": "application/x-www-form-urlencoded" } })
  add("no content type", { path: basePath, body: sample, headers: {} })
  add("content type application/json; charset=utf-16", { path: basePath, body: sample, headers: { "content-type": "application/json; charset=utf-16" } })
  const form = (label: string, body: string, contentType = "multipart/form-data; boundary=fuzz") =>
    add(label, { path: basePath, body, headers: { "content-type": contentType } })
  form("multipart without a boundary", "--x\r\n\r\n--x--\r\n", "multipart/form-data")
  form("multipart, empty body", "")
  const channel = ctx.ids("channel_id", template) ?? "1"
  const forms = [
    ["multipart, channel and a file", [{ name: "channel_id", value: channel }, { name: "file", value: "\u00ff\u00d8\u00ffjunk", filename: "a.jpg", type: "image/jpeg" }]],
    ["multipart, a file without channel", [{ name: "file", value: "abc", filename: "a.txt", type: "text/plain" }]],
    ["multipart, an unknown field", [{ name: "zz", value: "1" }]],
    ["multipart, channel with U+0000", [{ name: "channel_id", value: "1\u0000" }, { name: "file", value: "x", filename: "a.pdf", type: "application/pdf" }]],
    ["multipart, an empty file", [{ name: "channel_id", value: channel }, { name: "file", value: "", filename: "a.pdf", type: "application/pdf" }]],
    ["multipart, a file part without a type", [{ name: "channel_id", value: channel }, { name: "file", value: "%PDF-1.4", filename: "a.pdf" }]]
  ] as const
  // The routes that take a form get every malformed one; the others refuse any form alike.
  if (content["multipart/form-data"] === undefined) {
    form(forms[0][0], multipartBody("fuzz", forms[0][1]))
    return out
  }
  form("multipart with an empty boundary", "", "multipart/form-data; boundary=")
  form("multipart, no closing boundary", "--fuzz\r\nContent-Disposition: form-data; name=\"channel_id\"\r\n\r\n1\r\n--fuzz\r\n")
  form("multipart, headers cut short", "--fuzz\r\nContent-Disposition: form-da")
  form("multipart, junk", "junk")
  form("multipart, a parameter the parser refuses", "--fuzz--\r\n", "multipart/form-data; boundary=fuzz; junk")
  for (const [label, parts] of forms) form(label, multipartBody("fuzz", parts))
  return out
}

/** The seeded mutations of a valid Meta webhook: one node replaced by a value of another kind. */
export const webhookMutations = (payload: unknown, seed: number, count: number): ReadonlyArray<{ label: string; body: string }> => {
  const paths: Array<Array<string | number>> = []
  const walk = (node: unknown, path: Array<string | number>) => {
    paths.push(path)
    if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...path, i]))
    else if (typeof node === "object" && node !== null) for (const [k, v] of Object.entries(node)) walk(v, [...path, k])
  }
  walk(payload, [])
  const replacements: ReadonlyArray<readonly [string, string]> = [
    ["an object", "{\"a\":1}"],
    ["an empty object", "{}"],
    ["an array", "[1,\"x\",null]"],
    ["an empty array", "[]"],
    ["a string", "\"x\""],
    ["a number", "12345"],
    ["a huge number", "123456789012345678901234567890"],
    ["a negative number", "-1"],
    ["a fraction", "1.5"],
    ["null", "null"],
    ["true", "true"],
    ["a lone surrogate", "\"a\\ud800b\""],
    ["a low surrogate first", "\"\\udc00\\ud800\""],
    ["U+0000", "\"a\\u0000b\""],
    ["100,000 characters", JSON.stringify("y".repeat(100_000))],
    ["nested 300 levels", deep(300)],
    ["an object with odd keys", "{\"\\u0000\":1,\"\\ud800\":2,\"\":3}"]
  ]
  const out: Array<{ label: string; body: string }> = []
  for (let n = 0; n < count; n++) {
    const path = sampleWith(fc.constantFrom(...paths), seed, `path${n}`)
    const [what, raw] = sampleWith(fc.constantFrom(...replacements), seed, `value${n}`)
    const replaced = replaceAt(payload, path, RAW)
    out.push({ label: `${path.join(".") || "(root)"} as ${what}`, body: withRaw(replaced, raw) })
  }
  return out
}

const replaceAt = (node: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown => {
  if (path.length === 0) return value
  const [key, ...rest] = path
  if (Array.isArray(node)) return node.map((item, i) => (i === key ? replaceAt(item, rest, value) : item))
  const record = node as Record<string, unknown>
  return { ...record, [key!]: replaceAt(record[key as string], rest, value) }
}
