/*
 * The raw-forward body (SPEC §6.5) is the upstream JSON re-serialized compactly:
 * no whitespace between tokens, strings written the way JSON.stringify writes
 * them (non-ASCII and `/` literal, `"` `\` and control characters escaped, lone
 * surrogates as \uXXXX) and every number copied exactly as its source text, so
 * integers beyond 2^53 and forms such as `1.50` or `1e5` survive. Object keys
 * keep their order (a JS object would move integer-like keys first), which is
 * why this is a token-level parser over the text rather than JSON.parse plus
 * JSON.stringify, and why it keeps a tree: one POST may carry several channels'
 * entries, and each channel is forwarded only its own.
 */

export type RawJson =
  | { readonly kind: "object"; readonly members: ReadonlyArray<RawMember>; readonly text: string }
  | { readonly kind: "array"; readonly items: ReadonlyArray<RawJson>; readonly text: string }
  | { readonly kind: "scalar"; readonly text: string }

export interface RawMember {
  readonly key: string
  readonly value: RawJson
}

/** The text is not JSON; `position` is the offset in the decoded string. */
export class CompactJsonError extends Error {
  override readonly name = "CompactJsonError"
  constructor(message: string, readonly position: number) {
    super(`${message} at position ${position}`)
  }
}

const MAX_DEPTH = 256
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

class Parser {
  pos = 0
  constructor(readonly src: string) {}

  fail(message: string): never {
    throw new CompactJsonError(message, this.pos)
  }

  skip(): void {
    const s = this.src
    let c = s.charCodeAt(this.pos)
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.pos)
  }

  value(depth: number): RawJson {
    if (depth > MAX_DEPTH) this.fail("nesting too deep")
    this.skip()
    const c = this.src.charCodeAt(this.pos)
    if (c === 0x7b) return this.object(depth)
    if (c === 0x5b) return this.array(depth)
    if (c === 0x22) return { kind: "scalar", text: JSON.stringify(this.string()) }
    if (c === 0x74) return this.literal("true")
    if (c === 0x66) return this.literal("false")
    if (c === 0x6e) return this.literal("null")
    NUMBER.lastIndex = this.pos
    const m = NUMBER.exec(this.src)
    if (m === null || m[0].length === 0) this.fail("unexpected character")
    this.pos += m[0].length
    return { kind: "scalar", text: m[0] }
  }

  literal(word: string): RawJson {
    if (!this.src.startsWith(word, this.pos)) this.fail("unexpected character")
    this.pos += word.length
    return { kind: "scalar", text: word }
  }

  /** Decodes a string token (escapes resolved; `\uD83D\uDE00` becomes one code point). */
  string(): string {
    const s = this.src
    let i = ++this.pos
    let out = ""
    let start = i
    for (;;) {
      const c = s.charCodeAt(i)
      if (c === 0x22) {
        out += s.slice(start, i)
        this.pos = i + 1
        return out
      }
      if (Number.isNaN(c)) {
        this.pos = i
        this.fail("unterminated string")
      }
      if (c < 0x20) {
        this.pos = i
        this.fail("unescaped control character in string")
      }
      if (c !== 0x5c) {
        i++
        continue
      }
      out += s.slice(start, i)
      const e = s[i + 1]
      switch (e) {
        case "\"":
        case "\\":
        case "/":
          out += e
          i += 2
          break
        case "b":
          out += "\b"
          i += 2
          break
        case "f":
          out += "\f"
          i += 2
          break
        case "n":
          out += "\n"
          i += 2
          break
        case "r":
          out += "\r"
          i += 2
          break
        case "t":
          out += "\t"
          i += 2
          break
        case "u": {
          const hex = s.slice(i + 2, i + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            this.pos = i
            this.fail("invalid \\u escape")
          }
          out += String.fromCharCode(parseInt(hex, 16))
          i += 6
          break
        }
        default:
          this.pos = i
          this.fail("invalid escape")
      }
      start = i
    }
  }

  object(depth: number): RawJson {
    this.pos++
    const members: Array<RawMember> = []
    let text = "{"
    this.skip()
    if (this.src.charCodeAt(this.pos) === 0x7d) {
      this.pos++
      return { kind: "object", members, text: "{}" }
    }
    for (;;) {
      this.skip()
      if (this.src.charCodeAt(this.pos) !== 0x22) this.fail("expected a string key")
      const key = this.string()
      this.skip()
      if (this.src.charCodeAt(this.pos) !== 0x3a) this.fail("expected ':'")
      this.pos++
      const value = this.value(depth + 1)
      members.push({ key, value })
      text += (members.length > 1 ? "," : "") + JSON.stringify(key) + ":" + value.text
      this.skip()
      const c = this.src.charCodeAt(this.pos++)
      if (c === 0x7d) return { kind: "object", members, text: text + "}" }
      if (c !== 0x2c) {
        this.pos--
        this.fail("expected ',' or '}'")
      }
    }
  }

  array(depth: number): RawJson {
    this.pos++
    const items: Array<RawJson> = []
    this.skip()
    if (this.src.charCodeAt(this.pos) === 0x5d) {
      this.pos++
      return { kind: "array", items, text: "[]" }
    }
    let text = "["
    for (;;) {
      const value = this.value(depth + 1)
      items.push(value)
      text += (items.length > 1 ? "," : "") + value.text
      this.skip()
      const c = this.src.charCodeAt(this.pos++)
      if (c === 0x5d) return { kind: "array", items, text: text + "]" }
      if (c !== 0x2c) {
        this.pos--
        this.fail("expected ',' or ']'")
      }
    }
  }
}

/** Parses JSON text into a tree whose every node carries its compact text. Throws `CompactJsonError`. */
export const parseRawJson = (source: string): RawJson => {
  const parser = new Parser(source)
  const value = parser.value(0)
  parser.skip()
  if (parser.pos !== source.length) parser.fail("unexpected data after the JSON value")
  return value
}

/** The compact form of a JSON text (see the module comment). Throws `CompactJsonError`. */
export const compactJson = (source: string): string => parseRawJson(source).text

/** The member `key` of an object node, if any. */
export const rawMember = (node: RawJson | undefined, key: string): RawJson | undefined => {
  if (node === undefined || node.kind !== "object") return undefined
  for (const m of node.members) if (m.key === key) return m.value
  return undefined
}

/** An object node with one member's value replaced (order kept). */
export const withMember = (node: RawJson, key: string, value: RawJson): RawJson => {
  if (node.kind !== "object") return node
  const members = node.members.map((m) => (m.key === key ? { key, value } : m))
  return {
    kind: "object",
    members,
    text: "{" + members.map((m) => JSON.stringify(m.key) + ":" + m.value.text).join(",") + "}"
  }
}

/** An array node holding the given items. */
export const rawArray = (items: ReadonlyArray<RawJson>): RawJson => ({
  kind: "array",
  items,
  text: "[" + items.map((i) => i.text).join(",") + "]"
})
