import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { run } from "../../src/index.js"

/** The outcome of one in-process run. */
export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A capture stream; `tty` makes it claim to be a terminal. */
export const capture = (tty = false, onWrite?: (text: string) => void) => {
  let text = ""
  return {
    write: (s: string) => {
      text += s
      onWrite?.(text)
    },
    isTTY: tty,
    get text() {
      return text
    }
  }
}

/** A fresh, empty config directory. */
export const configHome = (): string => mkdtempSync(join(tmpdir(), "platform-cli-"))

/** Options of `cli`. */
export interface CliOptions {
  readonly env?: Record<string, string | undefined>
  readonly tty?: boolean
  readonly signal?: AbortSignal
  readonly stdin?: AsyncIterable<string>
  /** Called with everything written to stderr so far, after each write (to wait for "Ready!"). */
  readonly onStderr?: (text: string) => void
  /** The same for stdout. */
  readonly onStdout?: (text: string) => void
}

/** Runs `platform <argv>` in-process against the mock API with a fresh config directory unless one is given. */
export const cli = async (argv: ReadonlyArray<string>, options: CliOptions = {}): Promise<Ran> => {
  const stdout = capture(options.tty, options.onStdout)
  const stderr = capture(options.tty, options.onStderr)
  const env = { XDG_CONFIG_HOME: configHome(), PLATFORM_API_KEY: "pk_test_key", PLATFORM_BASE_URL: "http://api.test", ...options.env }
  const code = await run(argv, {
    stdout,
    stderr,
    env,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.stdin ? { stdin: options.stdin } : {})
  })
  return { code, stdout: stdout.text, stderr: stderr.text }
}
