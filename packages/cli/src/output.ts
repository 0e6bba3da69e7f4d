/** A writable text stream: process.stdout/stderr or a test capture. */
export interface TextSink {
  write(chunk: string): unknown
  readonly isTTY?: boolean | undefined
}

const codes = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], cyan: [36, 39], gray: [90, 39] } as const
export type Colour = keyof typeof codes
export type Paint = { readonly [K in Colour]: (s: string) => string }

const paint = (enabled: boolean): Paint =>
  Object.fromEntries(
    Object.entries(codes).map(([name, [open, close]]) => [name, (s: string) => (enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s)])
  ) as unknown as Paint

// eslint-disable-next-line no-control-regex
const visibleLength = (s: string): number => s.replace(/\u001b\[\d+m/g, "").length

/** One column of a table: a header and how to read the cell from a row. */
export interface Column<R> {
  readonly header: string
  readonly value: (row: R) => string
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/** Where every command writes: data on stdout (tables or `--json`), everything else on stderr. */
export class Output {
  /** Colours for stdout (on only for a TTY, off with NO_COLOR or --no-color). */
  readonly c: Paint
  /** Colours for stderr. */
  readonly ce: Paint
  constructor(
    readonly stdout: TextSink,
    readonly stderr: TextSink,
    readonly json: boolean,
    colour: boolean
  ) {
    this.c = paint(colour && stdout.isTTY === true)
    this.ce = paint(colour && stderr.isTTY === true)
  }

  /** Writes a line to stdout. */
  line(text = ""): void {
    this.stdout.write(`${text}\n`)
  }

  /** Writes a line to stderr (progress, hints, warnings). */
  info(text = ""): void {
    this.stderr.write(`${text}\n`)
  }

  /** With `--json`, writes the value as one JSON document; otherwise runs the human renderer. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value ?? null, null, 2)}\n`)
    else human()
  }

  /** Writes one JSON object on its own line (streaming commands with `--json`). */
  jsonLine(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value)}\n`)
  }

  /** Renders rows as an aligned table on stdout, or a dim note when there are none. */
  table<R>(rows: ReadonlyArray<R>, columns: ReadonlyArray<Column<R>>, empty = "No results."): void {
    if (rows.length === 0) {
      this.info(this.ce.dim(empty))
      return
    }
    const cells = rows.map((r) => columns.map((c) => c.value(r)))
    const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => visibleLength(row[i]!))))
    const pad = (s: string, i: number) => (i === columns.length - 1 ? s : s + " ".repeat(widths[i]! - visibleLength(s)))
    this.line(columns.map((c, i) => this.c.bold(pad(c.header.toUpperCase(), i))).join("  ").trimEnd())
    for (const row of cells) this.line(row.map(pad).join("  ").trimEnd())
  }

  /** Key/value lines for one resource. */
  fields(pairs: ReadonlyArray<readonly [string, unknown]>): void {
    const width = Math.max(...pairs.map(([k]) => k.length))
    for (const [k, v] of pairs) {
      const text = v === null || v === undefined ? this.c.dim("-") : typeof v === "object" ? JSON.stringify(v) : String(v)
      this.line(`${this.c.dim(k.padEnd(width))}  ${text}`)
    }
  }

  /** A spinner on stderr while a promise runs (only on a TTY and never with --json). */
  async spin<T>(text: string, work: Promise<T>): Promise<T> {
    if (this.json || this.stderr.isTTY !== true) return work
    let i = 0
    const draw = () => this.stderr.write(`\r${this.ce.cyan(FRAMES[i++ % FRAMES.length]!)} ${text}`)
    draw()
    const timer = setInterval(draw, 80)
    try {
      return await work
    } finally {
      clearInterval(timer)
      this.stderr.write(`\r${" ".repeat(text.length + 2)}\r`)
    }
  }
}

/** `2025-01-02 03:04:05` in local time (`03:04:05.678` with milliseconds), for streaming lines. */
export const clock = (d: Date = new Date(), millis = false): string => {
  const p = (n: number) => String(n).padStart(2, "0")
  const ms = millis ? `.${String(d.getMilliseconds()).padStart(3, "0")}` : ""
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${ms}`
}

/** Shortens long cell text with an ellipsis. */
export const truncate = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)
