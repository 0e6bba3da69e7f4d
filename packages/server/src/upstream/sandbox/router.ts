/**
 * The Graph API simulator's router: parses `/{version}/{id}/{edge}`, records the
 * call, checks the access token and hands the request to the routes of the resource
 * it names (messages, templates, media, uploads, phone numbers, onboarding).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Clock, Effect, Layer } from "effect"
import { graphError, json, magicError, readJson, unsupportedMethod } from "./graph-replies.js"
import { SANDBOX_ERROR_CASES, SANDBOX_EXPIRED_TOKEN } from "./magic.js"
import { deleteMedia, getMedia, mediaDownload, uploadMedia } from "./media-routes.js"
import { sendMessage } from "./message-routes.js"
import { exchangeCode, register, subscribedApps, userAccounts } from "./onboarding-routes.js"
import { blockUsers, businessProfile, phoneNumberView, setPin } from "./phone-number-routes.js"
import { SandboxState } from "./state.js"
import { editTemplate, handleTemplates, templateView } from "./template-routes.js"
import { createUploadSession, uploadFile } from "./upload-routes.js"

/** Where the simulator is mounted in the server (DESIGN §3). */
export const SANDBOX_GRAPH_PREFIX = "/__sandbox/graph"

const graphHandler = Effect.gen(function*() {
  const state = yield* SandboxState
  const req = yield* HttpServerRequest.HttpServerRequest
  const url = new URL(req.url, "http://sandbox.invalid")
  const method = req.method
  const segments = url.pathname.split("/").filter((s) => s.length > 0).map((s) => decodeURIComponent(s))
  const now = yield* Clock.currentTimeMillis
  state.calls.push({ method, path: url.pathname, at: now })

  const authHeader = req.headers["authorization"] ?? ""
  const token = authHeader.replace(/^(Bearer|OAuth)\s+/i, "").trim()

  if (segments[0] === "__media" && segments[1] && method === "GET") return mediaDownload(state, segments[1], token)

  const [version, first, edge, ...rest] = segments
  if (!version || !/^v\d+\.\d+$/.test(version) || !first || rest.length > 0) {
    return graphError({ status: 400, code: 2500, type: "OAuthException", message: `Unknown path components: ${url.pathname}` })
  }

  if (first === "oauth" && edge === "access_token") return yield* exchangeCode(state, method, url, req)

  if (!token) {
    return graphError({ status: 400, code: 2500, message: "An active access token must be used to query information about the current application." })
  }
  if (token === SANDBOX_EXPIRED_TOKEN) {
    return magicError(SANDBOX_ERROR_CASES.find((c) => c.code === 190)!)
  }

  if (first === "me" && edge === "accounts" && method === "GET") return userAccounts(token)

  if (first.startsWith("upload:") && edge === undefined && method === "POST") {
    return yield* uploadFile(state, method, first, authHeader, req)
  }

  if (edge === undefined) {
    if (method === "GET") {
      if (url.searchParams.has("phone_number_id")) {
        return getMedia(state, first, url.searchParams.get("phone_number_id"), method)
      }
      const t = state.templates.get(first)
      if (t) return json(templateView(t))
      return json(phoneNumberView(state, first, url.searchParams.get("fields")))
    }
    if (method === "DELETE") return deleteMedia(state, first, url.searchParams.get("phone_number_id"), method)
    if (method === "POST") {
      const body = yield* readJson(req)
      const t = state.templates.get(first)
      if (t) return yield* editTemplate(state, t, body)
      if (typeof body["pin"] === "string") return setPin(state, first, body["pin"])
      return unsupportedMethod(method)
    }
    return unsupportedMethod(method)
  }

  switch (edge) {
    case "messages":
      return yield* sendMessage(state, method, first, req)
    case "media":
    case "message_attachments":
      return yield* uploadMedia(state, method, edge, first, req)
    case "message_templates":
      return yield* handleTemplates(state, method, first, url, req)
    case "uploads":
      return createUploadSession(state, method, first, url)
    case "whatsapp_business_profile":
      return yield* businessProfile(state, method, first, req)
    case "block_users":
      return yield* blockUsers(state, method, first, req)
    case "register":
      return yield* register(state, method, first, req)
    case "subscribed_apps":
      return subscribedApps(state, method, first)
    default:
      return graphError({ status: 400, code: 2500, message: `Unknown path components: /${edge}` })
  }
}).pipe(
  Effect.catchAllCause((cause) =>
    Effect.logError("sandbox handler failed", cause).pipe(
      Effect.as(graphError({ status: 500, code: 1, type: "OAuthException", message: "An unknown error occurred" }))
    )
  )
)

/**
 * The Graph API simulator: answers Meta's paths and shapes under
 * `/{version}/...`. Mount it at `SANDBOX_GRAPH_PREFIX`; it needs `SandboxState`.
 */
export const sandboxRouter: HttpRouter.HttpRouter<never, SandboxState> = HttpRouter.empty.pipe(
  HttpRouter.all("/*", graphHandler)
)

/**
 * Mounts the simulator on the server's `HttpApiBuilder.Router` at
 * `/__sandbox/graph`. Needs `SandboxState` (see `SandboxLive`).
 */
export const SandboxRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const state = yield* SandboxState
    yield* router.mount(SANDBOX_GRAPH_PREFIX, sandboxRouter.pipe(HttpRouter.provideService(SandboxState, state)))
  })
)

/** `SandboxRoutes` with its state; also exposes `SandboxState` to the dashboard's inspection routes. */
export const SandboxLive = SandboxRoutes.pipe(Layer.provideMerge(SandboxState.Default))
