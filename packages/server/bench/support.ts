import { createServer } from "node:http"
import pg from "pg"

/** The Node flags the start scripts launch the server with (see the server README). */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=32"]

/** Runs one statement on its own connection (scratch databases, fixtures). */
export const query = async (url: string, text: string, values: Array<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}

/** A free loopback port. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      srv.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/** Resolves once `url` answers at all, or fails after `timeoutMs`. */
export const waitFor = async (url: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`)
}
