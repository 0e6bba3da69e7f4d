import { connect, type Socket } from "node:net"
import { once } from "node:events"
import { signedHeaders, signStandard } from "../../src/testing.js"
import { envelope, OTHER_SECRET, SECRET } from "../helpers.js"

/** A request to send to an adapter under test. */
export interface AdapterCase {
  readonly name: string
  readonly body: string
  readonly headers: Record<string, string>
  readonly status: number
  readonly events: ReadonlyArray<string>
  readonly reason?: string
}

const single = envelope("message.received")
const batch = { events: [envelope("message.sent"), envelope("message.delivered"), envelope("conversation.created")] }

/** The behaviour table every adapter must satisfy with `secret: SECRET`. */
export async function adapterCases(): Promise<AdapterCase[]> {
  const one = JSON.stringify(single)
  const many = JSON.stringify(batch)
  const signed = await signedHeaders(SECRET, one, { deliveryId: 77 })
  return [
    { name: "a signed single envelope is answered 204 and dispatched", body: one, headers: signed, status: 204, events: ["message.received"] },
    {
      name: "a signed batch is answered 204 and dispatched in order",
      body: many,
      headers: await signedHeaders(SECRET, many),
      status: 204,
      events: ["message.sent", "message.delivered", "conversation.created"]
    },
    { name: "a tampered body is answered 401", body: `${one} `, headers: signed, status: 401, events: [], reason: "signature_mismatch" },
    {
      name: "a body signed with another secret is answered 401",
      body: one,
      headers: await signedHeaders(OTHER_SECRET, one),
      status: 401,
      events: [],
      reason: "signature_mismatch"
    },
    {
      name: "a missing signature is answered 401",
      body: one,
      headers: { "content-type": "application/json" },
      status: 401,
      events: [],
      reason: "missing_signature"
    },
    {
      name: "an uppercase hex signature is answered 401",
      body: one,
      headers: { ...signed, "x-platform-signature": signed["x-platform-signature"]!.toUpperCase().replace("SHA256", "sha256") },
      status: 401,
      events: [],
      reason: "malformed_signature"
    },
    {
      name: "a signed body that is not JSON is answered 400",
      body: "not json",
      headers: await signedHeaders(SECRET, "not json"),
      status: 400,
      events: [],
      reason: "invalid_json"
    },
    {
      name: "a signed JSON body that is not an envelope is answered 400",
      body: "[1]",
      headers: await signedHeaders(SECRET, "[1]"),
      status: 400,
      events: [],
      reason: "invalid_envelope"
    }
  ]
}

/** Standard Webhooks headers for the `standard` scheme tests. */
export async function standardCase(ageSeconds: number): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify(envelope("channel.connected"))
  const headers = await signStandard(SECRET, body, { timestamp: Math.floor(Date.now() / 1000) - ageSeconds })
  return { body, headers: { "content-type": "application/json", ...headers } }
}

/** Opens a raw socket to `url` and sends a signed POST that declares 1000 bytes but carries only a few; the caller destroys the socket. */
export async function startPartialPost(url: string): Promise<Socket> {
  const { hostname, port, pathname } = new URL(url)
  const socket = connect(Number(port), hostname)
  await once(socket, "connect")
  const head = [`POST ${pathname} HTTP/1.1`, `Host: ${hostname}:${port}`, "Content-Type: application/json", "Content-Length: 1000"]
  const signature = (await signedHeaders(SECRET, "{}"))["x-platform-signature"]!
  socket.write(`${[...head, `X-Platform-Signature: ${signature}`].join("\r\n")}\r\n\r\n{"id":"evt_`)
  return socket
}
