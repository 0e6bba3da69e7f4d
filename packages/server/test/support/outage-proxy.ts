import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from "node:net"
import pg from "pg"
import { EMBEDDED_CONNECTIONS, embeddedConnection, migrate, parseDatabaseUrl, pgLayer, type Connection } from "../../src/db/client.js"

/**
 * A loopback TCP proxy between the server and its database that a test turns into
 * an outage without touching the database server (other tests share it): `cut`
 * destroys every live connection at once (the server sees "Connection terminated
 * unexpectedly" or ECONNRESET mid-statement, as in a PostgreSQL restart) and resets
 * new ones until `restore`; `hold` accepts new connections and answers nothing (a
 * black-holed network) until `restore` pipes them through; `stall` freezes the live
 * connections too (a statement sent waits for its answer) until they are cut or restored.
 */
export class OutageProxy {
  private mode: "open" | "cut" | "hold" = "open"
  private stalled = false
  private readonly live = new Set<readonly [Socket, Socket]>()
  private readonly held = new Set<Socket>()

  private constructor(private readonly server: Server, private readonly target: Connection) {}

  /** A proxy to `target` on 127.0.0.1 and an ephemeral port, closed with the scope. */
  static start = (target: Connection) =>
    Effect.acquireRelease(
      Effect.async<OutageProxy>((resume) => {
        const server = createServer()
        const proxy = new OutageProxy(server, target)
        server.on("connection", (socket) => proxy.accept(socket))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(proxy)))
      }),
      (proxy) => Effect.async<void>((resume) => {
        proxy.cut()
        proxy.server.close(() => resume(Effect.void))
      })
    )

  get port(): number {
    return (this.server.address() as AddressInfo).port
  }

  private accept(client: Socket) {
    client.on("error", () => {})
    if (this.mode === "cut") return void client.destroy()
    if (this.mode === "hold") {
      client.pause()
      this.held.add(client)
      client.once("close", () => this.held.delete(client))
      return
    }
    this.pipe(client)
  }

  private pipe(client: Socket) {
    const upstream = createConnection({ host: this.target.host, port: this.target.port })
    upstream.on("error", () => {})
    const pair = [client, upstream] as const
    this.live.add(pair)
    const close = () => {
      this.live.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.once("close", close)
    upstream.once("close", close)
    client.pipe(upstream)
    upstream.pipe(client)
    client.resume()
  }

  /** Destroys every live and held connection; new ones are reset until `restore`. */
  cut(): void {
    this.mode = "cut"
    this.stalled = false
    for (const [client, upstream] of this.live) {
      client.destroy()
      upstream.destroy()
    }
    this.live.clear()
    for (const client of this.held) client.destroy()
    this.held.clear()
  }

  /** New connections are accepted and left unanswered until `restore`. */
  hold(): void {
    this.mode = "hold"
  }

  /** The live connections stop passing data either way, and new ones are held as by `hold`. */
  stall(): void {
    this.mode = "hold"
    this.stalled = true
    for (const [client, upstream] of this.live) {
      client.unpipe(upstream)
      upstream.unpipe(client)
      client.pause()
      upstream.pause()
    }
  }

  /** Connections pass again; held ones are piped through now. */
  restore(): void {
    this.mode = "open"
    if (this.stalled) {
      for (const [client, upstream] of this.live) {
        client.pipe(upstream)
        upstream.pipe(client)
      }
      this.stalled = false
    }
    for (const client of this.held) this.pipe(client)
    this.held.clear()
  }
}

/** The proxy in front of a `TestDatabaseBehindProxy`, and statements run on the database past it. */
export class DatabaseOutage extends Context.Tag("test/DatabaseOutage")<DatabaseOutage, {
  readonly proxy: OutageProxy
  /** Runs one statement on the database directly (not through the proxy): what another process could still do. */
  readonly direct: <A extends object>(text: string, values?: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>>
}>() {}

const onConnection = async <A>(connection: Connection, use: (client: pg.Client) => Promise<A>) => {
  const client = new pg.Client({ ...connection, user: connection.username })
  client.on("error", () => {})
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

/**
 * A fresh, migrated database for one test file (a new database on `DATABASE_URL`,
 * dropped afterwards, or an in-memory PGlite) that the application reaches only
 * through an `OutageProxy` (`DatabaseOutage`).
 */
export const TestDatabaseBehindProxy = Layer.unwrapScoped(Effect.gen(function*() {
  const url = process.env.DATABASE_URL
  let connection: Connection
  let connections = 10
  if (url !== undefined && url !== "") {
    const admin = parseDatabaseUrl(url)
    const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
    yield* Effect.acquireRelease(
      Effect.promise(() => onConnection(admin, (c) => c.query(`create database ${name}`))),
      () => Effect.promise(() => onConnection(admin, (c) => c.query(`drop database if exists ${name} with (force)`)).catch(() => undefined))
    )
    connection = { ...admin, database: name }
  } else {
    connection = yield* embeddedConnection({})
    connections = EMBEDDED_CONNECTIONS
  }
  const proxy = yield* OutageProxy.start(connection)
  const direct = <A extends object>(text: string, values: ReadonlyArray<unknown> = []) =>
    Effect.promise(() => onConnection(connection, async (c) => (await c.query(text, values as Array<unknown>)).rows as ReadonlyArray<A>))
  return Layer.effectDiscard(migrate).pipe(
    Layer.provideMerge(pgLayer({ ...connection, host: "127.0.0.1", port: proxy.port }, connections)),
    Layer.provideMerge(Layer.succeed(DatabaseOutage, { proxy, direct }))
  )
}))
