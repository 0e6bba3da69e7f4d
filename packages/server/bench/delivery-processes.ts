/**
 * The processes of bench:delivery besides the engine's: the echo receiver
 * (echo-receiver.ts) and the event writer (event-writer.ts), each its own process,
 * and statements on the admin database (scratch databases).
 */
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

const here = dirname(fileURLToPath(import.meta.url))
export const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

export const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  // A lost connection rejects the statement; without a listener its 'error' event would end the process too.
  client.on("error", () => {})
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

export const startReceiver = () =>
  new Promise<{ url: string; pid: number; stop: () => void }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "echo-receiver.ts")], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.once("error", reject)
    child.stdout.once("data", (chunk: Buffer) => {
      const port = Number(chunk.toString().trim())
      resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, stop: () => child.kill() })
    })
  })

export interface WriterReply {
  readonly committedAt: number
  readonly ids: ReadonlyArray<string> | null
}

/** The event writer process (event-writer.ts) over the scratch database; `write` runs one command. */
export const startWriter = (database: string, account: number, channel: number) =>
  new Promise<{
    pid: number
    write: (command: { n: number; offset: number; conversations: number | null; ids: boolean }) => Promise<WriterReply>
    stop: () => void
  }>((resolve, reject) => {
    const url = new URL(databaseUrl)
    url.pathname = `/${database}`
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(here, "event-writer.ts"), url.href, String(account), String(channel)],
      { stdio: ["pipe", "pipe", "inherit"] }
    )
    child.once("error", reject)
    const waiting: Array<(line: string) => void> = []
    const lines = createInterface({ input: child.stdout })
    lines.on("line", (line) => waiting.shift()?.(line))
    waiting.push(() =>
      resolve({
        pid: child.pid ?? 0,
        write: (command) =>
          new Promise((done) => {
            waiting.push((line) => done(JSON.parse(line) as WriterReply))
            child.stdin.write(`${JSON.stringify(command)}\n`)
          }),
        stop: () => child.kill()
      })
    )
  })

