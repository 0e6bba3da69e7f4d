import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { PlatformApi } from "@platform/shared"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"

// The document the server serves at /platform/v1/openapi.json (HttpApiBuilder.middlewareOpenApi);
// the server's test/openapi.test.ts lints what it serves.
const doc = JSON.stringify(OpenApi.fromApi(PlatformApi))

/** A client that calls routes through the generated types; each line is what a user relies on. */
const CONSUMER = `
import type { components, paths } from "./platform-api.js"

type Json<R> = R extends { content: { "application/json": infer B } } ? B : never
type Read = Json<paths["/platform/v1/webhooks/subscriptions/{sub_id}"]["get"]["responses"]["200"]>
type Created = Json<paths["/platform/v1/webhooks/subscriptions"]["post"]["responses"]["201"]>
type Rotated = Json<paths["/platform/v1/webhooks/subscriptions/{sub_id}/rotate-secret"]["post"]["responses"]["200"]>

export const secretOf = (s: Created | Rotated): string => s.secret
// @ts-expect-error a subscription read back never carries its secret
export const readSecret = (s: Read) => s.secret
export const inbound: paths["/webhook/incoming"]["post"]["parameters"]["header"]["X-Hub-Signature-256"] = "sha256=00"
export const answer: Json<paths["/webhook/incoming"]["post"]["responses"]["200"]> = { status: "platform", forwarded: true }
export const handshake: paths["/webhook/incoming"]["get"]["parameters"]["query"] = {
  "hub.mode": "subscribe", "hub.verify_token": "t", "hub.challenge": "c"
}
export const token: paths["/platform/v1/media-downloads/{token}"]["get"]["parameters"]["path"]["token"] = "a.b.c"
export const channel = (c: components["schemas"]["Channel"]): number => c.channel_id
`

/** Type-checks files under strict (and exactOptionalPropertyTypes); the diagnostics, formatted. */
const typecheck = (files: ReadonlyArray<string>): string => {
  const program = ts.createProgram(files, {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: []
  })
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => "/",
    getNewLine: () => "\n"
  })
}

describe("a client generated from the OpenAPI document by openapi-typescript", () => {
  it("type-checks under strict, with what a user relies on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-client-"))
    try {
      const source = astToString(await openapiTS(doc))
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
      writeFileSync(join(dir, "platform-api.ts"), source)
      writeFileSync(join(dir, "consumer.ts"), CONSUMER)
      expect(typecheck([join(dir, "platform-api.ts"), join(dir, "consumer.ts")])).toBe("")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
