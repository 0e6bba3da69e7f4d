import { HttpApi } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { PlatformApi } from "@platform/shared"
import { lintFromString, loadConfig } from "@redocly/openapi-core"
import { Effect } from "effect"
import { request } from "node:http"
import { fileURLToPath } from "node:url"
import { OTHER_ROUTES } from "../src/telemetry/route-templates.js"
import { baseUrl, TestServer } from "./support/server.js"

type Document = {
  readonly info: { readonly license?: { readonly name: string } }
  readonly servers?: ReadonlyArray<{ readonly url: string }>
  readonly paths: Record<string, Record<string, unknown>>
}

const served = Effect.flatMap(baseUrl, (base) =>
  Effect.promise(async () => {
    const res = await fetch(`${base}/platform/v1/openapi.json`)
    return { status: res.status, text: await res.text() }
  }))

/** The routes served beside the contract that are not part of the API it documents, and why. */
const UNDOCUMENTED: ReadonlyMap<string, string> = new Map([
  ["GET /platform/v1/openapi.json", "the document itself"],
  ["GET /platform/v1/docs", "the document rendered as HTML"],
  ["GET /metrics", "Prometheus' scrape, for operators, on its own listener when METRICS_PORT is set"],
  ["* /__sandbox/graph/*", "the built-in simulator of the upstream, not the platform's API"]
])

const redoclyConfig = fileURLToPath(new URL("../../../redocly.yaml", import.meta.url))

layer(TestServer())("the served OpenAPI document", (it) => {
  it.effect("lints with no error and no warning under Redocly's recommended rules", () =>
    Effect.gen(function*() {
      const { status, text } = yield* served
      expect(status).toBe(200)
      const config = yield* Effect.promise(() => loadConfig({ configPath: redoclyConfig }))
      const problems = yield* Effect.promise(() =>
        lintFromString({ source: text, absoluteRef: "/platform/v1/openapi.json", config })
      )
      expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([])
      const doc = JSON.parse(text) as Document
      expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })])
      expect(doc.info.license?.name).toBe("MIT")
    }), 60_000)

  it.effect("documents every route the server answers", () =>
    Effect.gen(function*() {
      const doc = JSON.parse((yield* served).text) as Document
      const documented = new Set(
        Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      )
      const routes: Array<string> = []
      HttpApi.reflect(PlatformApi, {
        onGroup: () => {},
        onEndpoint: ({ endpoint }) => routes.push(`${endpoint.method} ${endpoint.path}`)
      })
      for (const [method, path] of OTHER_ROUTES) routes.push(`${method} ${path}`)
      const missing = routes
        .filter((route) => !UNDOCUMENTED.has(route))
        .map((route) => route.replace(/:(\w+)/g, "{$1}"))
        .filter((route) => !documented.has(route))
      expect(missing).toEqual([])
      expect(documented).toContain("GET /webhook/incoming")
      expect(documented).toContain("POST /webhook/incoming")
      expect(documented).toContain("GET /platform/v1/media-downloads/{token}")
    }))

  it.effect("a probe with headers over Node's 16 KB limit is the documented 431", () =>
    Effect.gen(function*() {
      const base = new URL(yield* baseUrl)
      const status = yield* Effect.async<number | undefined>((resume) => {
        const req = request({ host: base.hostname, port: base.port, path: "/healthz", headers: { "x-padding": "a".repeat(20_000) } })
        req.on("response", (res) => resume(Effect.succeed(res.statusCode)))
        req.on("error", () => resume(Effect.succeed(undefined)))
        req.end()
      })
      expect(status).toBe(431)
      const doc = JSON.parse((yield* served).text) as { paths: Record<string, { get: { responses: object } }> }
      expect(Object.keys(doc.paths["/healthz"]!.get.responses)).toContain("431")
      expect(Object.keys(doc.paths["/readyz"]!.get.responses)).toContain("431")
    }))
})
