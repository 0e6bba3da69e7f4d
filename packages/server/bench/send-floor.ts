/**
 * The floor under any send, for `bench:send`: the server's CPU time per request of
 * routes that do part of a send's work and none of the rest, on the same server in
 * the same sitting. What `POST /platform/v1/messages` answered 404 for an unknown
 * channel costs (the HTTP stack, the key's check, the body's decoding, the channel
 * lookup; no upstream call, no write) bounds the platform's sends/s against the bare
 * proxy's on the same CPU, whatever the send itself costs.
 */
import autocannon, { type Request } from "autocannon"
import { cpuMs } from "./process-cpu.js"

export interface FloorStep {
  readonly name: string
  readonly rps: number
  /** The server's CPU time per request over the step, ms (user + system, /proc). */
  readonly cpuMs: number
  readonly statuses: string
}

const step = (pid: number, base: string, name: string, request: Request, seconds: number) =>
  new Promise<FloorStep>((resolve, reject) => {
    const before = cpuMs(pid)
    autocannon({ url: base, connections: 32, duration: seconds, requests: [request] }, (error, result) => {
      if (error) return reject(error)
      const used = cpuMs(pid) - before
      resolve({
        name,
        rps: result.requests.total / (result.duration || seconds),
        cpuMs: used / Math.max(1, result.requests.total),
        statuses: result.non2xx > 0 ? `${result.non2xx} non-2xx` : "2xx"
      })
    })
  })

/** Measures each route for `seconds` after a one-second warm-up. */
export const measureFloor = async (pid: number, base: string, key: string, channelId: number, seconds: number) => {
  const json = { "x-api-key": key, "content-type": "application/json" }
  const routes: ReadonlyArray<[string, Request]> = [
    ["GET /healthz", { method: "GET", path: "/healthz" }],
    ["GET /platform/v1/channels", { method: "GET", path: "/platform/v1/channels", headers: { "x-api-key": key } }],
    ["POST /platform/v1/messages 404", {
      method: "POST",
      path: "/platform/v1/messages",
      headers: json,
      body: `{"channel_id":${channelId + 1_000_000},"to":"17770000001","type":"text","text":"Order #1 has shipped"}`
    }]
  ]
  const steps: Array<FloorStep> = []
  for (const [name, request] of routes) {
    await step(pid, base, name, request, 1)
    steps.push(await step(pid, base, name, request, seconds))
  }
  return steps
}
