import { verify } from "@platform/webhook-verify"
import { createServer } from "node:http"
import type { AddressInfo, Socket } from "node:net"

/** One POST the receiver got: which event, for which conversation, and what became of its answer. */
export interface Delivery {
  /** Arrival order, from 1. */
  readonly n: number
  readonly at: number
  readonly eventId: string
  readonly peer: string
  readonly text: string
  /** `X-Platform-Signature` verified with the subscription's secret (set once checked). */
  signatureOk: boolean
  /** The connection it came on (see `Connection`). */
  readonly connection: number
  /** When the 200 was written out (also to a sender gone meanwhile: see the test's kill); undefined while held. */
  answeredAt?: number
}

export interface Connection {
  readonly id: number
  /** The sender's port: which process it is (see `tcpPortsTo`). */
  readonly remotePort: number
  readonly openedAt: number
  /** When the sender's side closed (its FIN: a process killed has the kernel close its sockets). */
  endedAt?: number
  closedAt?: number
}

export interface RecordingReceiver {
  readonly url: string
  readonly deliveries: ReadonlyArray<Delivery>
  readonly connections: ReadonlyArray<Connection>
  /** The subscription's secret, once known, to verify `X-Platform-Signature` with. */
  secret: string | undefined
  readonly close: () => Promise<void>
}

/**
 * A webhook receiver on 127.0.0.1 that answers every POST 200 after `holdMs`, so that a sender
 * killed at any moment has POSTs in flight here, and records each POST's event id, conversation,
 * connection and when it was answered. Keep-alive connections are kept for a minute, so that the
 * connections ending when a worker is killed are that worker's.
 */
export const startRecordingReceiver = (holdMs: number) =>
  new Promise<RecordingReceiver>((resolve) => {
    const deliveries: Array<Delivery> = []
    const connections: Array<Connection> = []
    const ids = new WeakMap<Socket, Connection>()
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const body = Buffer.concat(chunks)
        const envelope = JSON.parse(body.toString("utf8")) as { id: string; data: { peer_id: string; text: string } }
        const delivery: Delivery = {
          n: deliveries.length + 1,
          at: Date.now(),
          eventId: String(req.headers["x-platform-event-id"]),
          peer: envelope.data.peer_id,
          text: envelope.data.text,
          signatureOk: false,
          connection: ids.get(req.socket)?.id ?? -1
        }
        deliveries.push(delivery)
        const signature = req.headers["x-platform-signature"]
        void (receiver.secret === undefined
          ? Promise.resolve(false)
          : verify(receiver.secret, body, typeof signature === "string" ? signature : undefined).then((r) => r.ok))
          .then((ok) => (delivery.signatureOk = ok && envelope.id === delivery.eventId))
        res.on("finish", () => (delivery.answeredAt = Date.now()))
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(200, { "content-type": "text/plain" }).end("ok")
        }, holdMs)
      })
    })
    server.on("connection", (socket: Socket) => {
      const connection: Connection = { id: connections.length + 1, remotePort: socket.remotePort ?? 0, openedAt: Date.now() }
      connections.push(connection)
      ids.set(socket, connection)
      socket.on("end", () => (connection.endedAt = Date.now()))
      socket.on("close", () => (connection.closedAt = Date.now()))
    })
    server.keepAliveTimeout = 60_000
    const receiver: RecordingReceiver = {
      url: "",
      deliveries,
      connections,
      secret: undefined,
      close: () =>
        new Promise<void>((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
    }
    server.listen(0, "127.0.0.1", () => {
      ;(receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/multi`
      resolve(receiver)
    })
  })
