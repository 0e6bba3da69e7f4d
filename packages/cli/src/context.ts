import { Platform, type RetryNotice } from "@platform/sdk"
import type { Command } from "commander"
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { Output, type TextSink } from "./output.js"

/** What `run` needs from the outside world; process globals in bin.ts, captures in tests. */
export interface RunIO {
  readonly stdout: TextSink
  readonly stderr: TextSink
  readonly env: Readonly<Record<string, string | undefined>>
  /** fetch used for the API and for `listen` forwards (default: the global fetch). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Aborting it interrupts streaming commands (Ctrl-C); they then exit 130. */
  readonly signal?: AbortSignal | undefined
  /** Read when a command needs input it was not given (login without a key). */
  readonly stdin?: AsyncIterable<string | Uint8Array> | undefined
}

/** Exit codes (`platform help exit-codes`). */
export const ExitCode = { ok: 0, failure: 1, usage: 2, auth: 4, interrupted: 130 } as const

/** An error the CLI reports as a one-line message with a chosen exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failure
  ) {
    super(message)
  }
}

/** A usage mistake (exit 2). */
export const usage = (message: string): CliError => new CliError(message, ExitCode.usage)

/** What `platform login --email` keeps in the profile: the dashboard's session cookie and whose it is. */
export interface StoredSession {
  readonly cookie: string
  readonly email: string
  /** When the cookie expires (ISO 8601), as the server set it; unknown when it gave no Max-Age or Expires. */
  readonly expires_at?: string
}

/** One profile of the config file. */
export interface Profile {
  api_key?: string
  base_url?: string
  /** The dashboard session of `platform login --email`. */
  session?: StoredSession
  /** The `listen` signing secret, kept so a local receiver's configuration survives restarts. */
  listen_secret?: string
}

/** The config file `$XDG_CONFIG_HOME/platform/config.json`. */
export interface ConfigFile {
  profiles: Record<string, Profile>
}

/** The global options of every command. */
export interface GlobalFlags {
  readonly apiKey?: string
  readonly baseUrl?: string
  readonly profile?: string
  readonly json?: boolean
  readonly color?: boolean
}

/** Where a resolved setting came from. */
export type Source = "flag" | "env" | "profile" | "default"

export const DEFAULT_BASE_URL = "http://localhost:8080"

/** Settings resolved with the precedence flag > env > profile file > default, plus the client and output built from them. */
export class Context {
  flags: GlobalFlags = {}
  /** The command whose action runs (set before it runs), so errors can name its flags. */
  command: Command | undefined
  #config: ConfigFile | undefined
  #output: Output | undefined
  #client: Platform | undefined

  constructor(readonly io: RunIO) {}

  /** The path of the config file. */
  get configPath(): string {
    const xdg = this.io.env.XDG_CONFIG_HOME
    const base = xdg !== undefined && xdg !== "" ? xdg : join(this.io.env.HOME ?? homedir(), ".config")
    return join(base, "platform", "config.json")
  }

  /** The profile name: --profile > PLATFORM_PROFILE > `default`. */
  get profileName(): string {
    return this.flags.profile ?? nonEmpty(this.io.env.PLATFORM_PROFILE) ?? "default"
  }

  /** Reads the config file (an absent file is an empty config). */
  async config(): Promise<ConfigFile> {
    if (this.#config) return this.#config
    try {
      const parsed = JSON.parse(await readFile(this.configPath, "utf8")) as Partial<ConfigFile>
      this.#config = { profiles: parsed.profiles ?? {} }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new CliError(`Cannot read ${this.configPath}: ${(e as Error).message}`)
      this.#config = { profiles: {} }
    }
    return this.#config
  }

  /** The selected profile (empty when the file has none of that name). */
  async profile(): Promise<Profile> {
    return (await this.config()).profiles[this.profileName] ?? {}
  }

  /** Merges fields into the selected profile and writes the file with mode 0600. */
  async saveProfile(update: Profile): Promise<void> {
    const config = await this.config()
    config.profiles[this.profileName] = { ...config.profiles[this.profileName], ...update }
    await this.#write(config)
  }

  async #write(config: ConfigFile): Promise<void> {
    const path = this.configPath
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    const tmp = `${path}.${process.pid}.tmp`
    await writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
    await chmod(tmp, 0o600)
    await rename(tmp, path)
  }

  /** Removes fields from the selected profile (logout). */
  async forget(fields: ReadonlyArray<keyof Profile>): Promise<void> {
    const config = await this.config()
    const profile = { ...config.profiles[this.profileName] }
    for (const field of fields) delete profile[field]
    config.profiles[this.profileName] = profile
    await this.#write(config)
  }

  /** The API key and where it came from. */
  async apiKey(): Promise<{ readonly value: string; readonly source: Source } | undefined> {
    if (this.flags.apiKey) return { value: this.flags.apiKey, source: "flag" }
    const env = nonEmpty(this.io.env.PLATFORM_API_KEY)
    if (env) return { value: env, source: "env" }
    const stored = (await this.profile()).api_key
    return stored ? { value: stored, source: "profile" } : undefined
  }

  /** The API origin and where it came from; one that is not an absolute http(s) URL is a usage error naming its source. */
  async baseUrl(): Promise<{ readonly value: string; readonly source: Source }> {
    if (this.flags.baseUrl) return this.#checkedBaseUrl(this.flags.baseUrl, "flag")
    const env = nonEmpty(this.io.env.PLATFORM_BASE_URL)
    if (env) return this.#checkedBaseUrl(env, "env")
    const stored = (await this.profile()).base_url
    return stored ? this.#checkedBaseUrl(stored, "profile") : { value: DEFAULT_BASE_URL, source: "default" }
  }

  #checkedBaseUrl(value: string, source: Source): { readonly value: string; readonly source: Source } {
    let protocol: string | undefined
    try {
      protocol = new URL(value).protocol
    } catch {
      protocol = undefined
    }
    if (protocol === "http:" || protocol === "https:") return { value, source }
    const origin = source === "flag" ? "--base-url" : source === "env" ? "PLATFORM_BASE_URL" : `base_url of profile ${this.profileName} in ${this.configPath}`
    throw usage(`${origin} must be an absolute http:// or https:// URL such as http://localhost:8080, got ${JSON.stringify(value)}`)
  }

  /** Builds a client for an explicit key (login). */
  async clientFor(apiKey: string): Promise<Platform> {
    return new Platform({ apiKey, baseUrl: (await this.baseUrl()).value, fetch: this.io.fetch, maxRetries: 2, onRetry: (n) => this.#retrying(n), signal: this.io.signal })
  }

  /** Says on stderr what the client waits for, so a rate-limited command is not silent for up to a minute. */
  #retrying(n: RetryNotice): void {
    const seconds = Math.max(1, Math.round(n.delayMs / 1000))
    const why = n.status === 429 ? "Rate limited (429)" : n.status !== undefined ? `The server answered ${n.status}` : "The connection failed"
    this.out.info(this.out.ce.yellow(`${why}: waiting ${seconds} s before retrying ${n.method} ${n.path}…`))
  }

  /** The API client; exits 4 with a hint when no key is configured. */
  async client(): Promise<Platform> {
    if (this.#client) return this.#client
    const key = await this.apiKey()
    if (!key) {
      throw new CliError(
        "No API key. Pass --api-key, set PLATFORM_API_KEY, or run `platform login` (see `platform help environment`).",
        ExitCode.auth
      )
    }
    this.#client = await this.clientFor(key.value)
    return this.#client
  }

  /** The output writer for the current flags. */
  get out(): Output {
    this.#output ??= new Output(this.io.stdout, this.io.stderr, this.flags.json === true, this.colour)
    return this.#output
  }

  /** Colours: on unless --no-color, NO_COLOR or TERM=dumb (and only where the stream is a TTY). */
  get colour(): boolean {
    if (this.flags.color === false) return false
    if (this.io.env.NO_COLOR !== undefined) return false
    if (this.io.env.TERM === "dumb") return false
    return true
  }

  /** The fetch for non-API requests (listen forwards, dashboard login). */
  get fetch(): typeof globalThis.fetch {
    return this.io.fetch ?? globalThis.fetch
  }

  /** Aborted when the user interrupts. */
  get signal(): AbortSignal | undefined {
    return this.io.signal
  }
}

const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s.trim() === "" ? undefined : s.trim())
