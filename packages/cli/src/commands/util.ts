import { Command, InvalidArgumentError } from "commander"
import { CliError, type Context, ExitCode } from "../context.js"

/** Builds one command; every file under commands/<noun>/ exports one of these. */
export type CommandFactory = (ctx: Context) => Command

/** Parses a positive integer option or argument. */
export const int = (value: string): number => {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError("must be a whole number")
  return Number(value)
}

/** Parses a number (latitude, longitude). */
export const num = (value: string): number => {
  const n = Number(value)
  if (value.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("must be a number")
  return n
}

/** Parses a comma-separated list (`--events a,b`), accumulating when repeated. */
export const list = (value: string, previous: ReadonlyArray<string> = []): string[] => [
  ...previous,
  ...value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
]

/** Parses repeated `--header Name:Value` options into a record. */
export const header = (value: string, previous: Record<string, string> = {}): Record<string, string> => {
  const at = value.indexOf(":")
  if (at <= 0) throw new InvalidArgumentError("must be Name:Value")
  return { ...previous, [value.slice(0, at).trim()]: value.slice(at + 1).trim() }
}

/** Parses a JSON option value. */
export const json = (value: string): unknown => {
  try {
    return JSON.parse(value) as unknown
  } catch {
    throw new InvalidArgumentError("must be valid JSON")
  }
}

/** Copies the defined entries of an object (exactOptionalPropertyTypes-friendly). */
export const defined = <T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> }

/** Parses a repeatable option whose values may hold commas (`--website a --website b`). */
export const repeat = (value: string, previous: ReadonlyArray<string> = []): string[] => [...previous, value]

/** The first line of an input stream, trimmed (a key or PIN piped in, or typed at a prompt). */
export const readLine = async (input: AsyncIterable<string | Uint8Array>): Promise<string> => {
  let text = ""
  for await (const chunk of input) {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")
    if (text.includes("\n")) break
  }
  return text.split("\n")[0]!.trim()
}

/** A stdin that may be a terminal (process.stdin is one when nothing is piped in). */
interface MaybeTerminal extends AsyncIterable<string | Uint8Array> {
  readonly isTTY?: boolean | undefined
  readonly setRawMode?: ((mode: boolean) => unknown) | undefined
}

/**
 * One line of a secret (a PIN, an API key): from a terminal with echo off (raw mode, restored afterwards;
 * Backspace edits, Ctrl-C or Ctrl-D ends the command with `interrupted`), otherwise as `readLine` reads piped input.
 */
export const readSecretLine = async (input: MaybeTerminal, interrupted = "Interrupted: no PIN was set."): Promise<string> => {
  if (input.isTTY !== true || typeof input.setRawMode !== "function") return readLine(input)
  input.setRawMode(true)
  try {
    let text = ""
    for await (const chunk of input) {
      for (const key of typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")) {
        if (key === "\r" || key === "\n") return text.trim()
        if (key === "\u0003" || key === "\u0004") throw new CliError(interrupted, ExitCode.interrupted)
        text = key === "\u007f" || key === "\b" ? text.slice(0, -1) : text + key
      }
    }
    return text.trim()
  } finally {
    input.setRawMode(false)
  }
}

/** Shorthand for a new subcommand. */
export const command = (name: string, description: string): Command => new Command(name).description(description)

/** Resolves after `ms`, or early when the signal aborts. */
export const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener("abort", done)
      resolve()
    }
    signal?.addEventListener("abort", done, { once: true })
  })
