import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { inspect } from "node:util"
import { Cause, Effect, Exit, Layer, Logger, LogLevel, Redacted } from "effect"
import { delay, http, HttpResponse } from "msw"
import { AppConfig } from "../../src/config.js"
import type { ChannelCredentials } from "../../src/upstream/credentials.js"
import { toSendErrorBody, type UpstreamCallError, type UpstreamRequestInvalid } from "../../src/upstream/errors.js"
import { Upstream } from "../../src/upstream/upstream.js"
import { GRAPH } from "../fixtures/meta/index.js"
import { graphMock } from "../support/graph-mock.js"

const TOKEN = "EAAGrecognisableSecretToken4242XYZ"
const CODE = "recognisable-signup-code-777"
const APP_SECRET = "recognisable-app-secret-999"

const creds: ChannelCredentials = {
  kind: "chat",
  id: 1,
  phone_number_id: "106540352242922",
  waba_id: "102290129340398",
  access_token: Redacted.make(TOKEN)
}

const server = graphMock("error")

const logs: Array<string> = []
const CapturingLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, cause, message }) => {
    logs.push(inspect({ message, annotations: [...annotations], cause: Cause.pretty(cause) }, { depth: 10 }))
  })
)

const TestLive = Upstream.layerWith({ timeoutMs: 150, retryBaseMs: 1, retries: 1 }).pipe(
  Layer.provideMerge(AppConfig.layerWith({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_APP_SECRET: APP_SECRET })),
  Layer.provideMerge(FetchHttpClient.layer),
  Layer.provideMerge(CapturingLogger),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.All))
)

/** Meta bodies that echo the secrets back, as some Graph errors do. */
const echoingEnvelope = (status: number, code: number) => () =>
  HttpResponse.json({
    error: {
      message: `Invalid OAuth access token - Cannot parse access token: ${TOKEN} (code ${CODE}, client_secret=${APP_SECRET})`,
      type: "OAuthException",
      code,
      error_user_title: `Token ${TOKEN}`,
      error_user_msg: `Bearer ${TOKEN}`,
      error_data: { details: `access_token=${TOKEN}&code=${CODE}` },
      fbtrace_id: "Aleak"
    }
  }, { status })

type Run = (u: Upstream) => Effect.Effect<unknown, UpstreamCallError | { readonly _tag: string }>

const ERROR_PATHS: ReadonlyArray<readonly [string, () => void, Run, boolean?]> = [
  ["an auth envelope echoing the token", () => server.use(http.all(`${GRAPH}/*`, echoingEnvelope(401, 190))), (u) => u.sendMessage(creds, { to: "1", type: "text", text: "x" })],
  ["a classified send error echoing the token", () => server.use(http.all(`${GRAPH}/*`, echoingEnvelope(400, 131056))), (u) => u.sendMessage(creds, { to: "1", type: "text", text: "x" })],
  ["a 5xx on a retried GET", () => server.use(http.all(`${GRAPH}/*`, echoingEnvelope(500, 1))), (u) => u.getHealth(creds)],
  ["a template sync error", () => server.use(http.all(`${GRAPH}/*`, echoingEnvelope(400, 100))), (u) => u.listTemplates(creds)],
  ["a code exchange error echoing code and secret", () => server.use(http.all(`${GRAPH}/*`, echoingEnvelope(400, 100))), (u) => u.exchangeCode(CODE), true],
  ["a non-JSON body echoing the token", () => server.use(http.all(`${GRAPH}/*`, () => new HttpResponse(`bad token ${TOKEN}`, { status: 502 }))), (u) => u.getPhoneNumber(creds)],
  ["a network failure", () => server.use(http.all(`${GRAPH}/*`, () => HttpResponse.error())), (u) => u.sendMessage(creds, { to: "1", type: "text", text: "x" })],
  ["a time-out", () => server.use(http.all(`${GRAPH}/*`, async () => { await delay(1_000); return HttpResponse.json({}) })), (u) => u.sendMessage(creds, { to: "1", type: "text", text: "x" })],
  ["a success body of the wrong shape carrying the token", () => server.use(http.all(`${GRAPH}/*`, () => HttpResponse.json({ access_token: 42, leaked: TOKEN }))), (u) => u.exchangeCode(CODE), true],
  ["a media download error", () => server.use(http.all("https://lookaside.fbsbx.com/*", echoingEnvelope(401, 190))), (u) => u.downloadMedia(creds, "https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1")]
]

describe("the channel token never leaks", () => {
  it.live.each(ERROR_PATHS.map(([name, arrange, run, usesCode]) => [name, arrange, run, usesCode === true] as const))(
    "%s: the error, its 502 body and the logs carry no token, code or app secret",
    ([_name, arrange, run, usesCode]) =>
      Effect.gen(function*() {
        arrange()
        logs.length = 0
        const exit = yield* Effect.exit(Effect.flatMap(Upstream, run))
        expect(Exit.isFailure(exit)).toBe(true)
        if (!Exit.isFailure(exit)) return
        const error = Cause.squash(exit.cause) as UpstreamCallError | UpstreamRequestInvalid
        const surfaces = [
          JSON.stringify(error),
          inspect(error, { depth: 10 }),
          String(error),
          error.message,
          Cause.pretty(exit.cause),
          error._tag !== "UpstreamRequestInvalid" ? JSON.stringify(toSendErrorBody(error)) : "",
          ...logs
        ]
        expect(logs.length).toBeGreaterThan(0)
        for (const text of surfaces) {
          expect(text).not.toContain(TOKEN)
          if (usesCode) expect(text).not.toContain(CODE)
          expect(text).not.toContain(APP_SECRET)
        }
      }).pipe(Effect.provide(TestLive))
  )
})
