import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { AppConfig } from "../config.js"
import { type ConsoleFile, defaultConsoleDir, loadConsoleFiles } from "./console-files.js"

export const CONSOLE_PATH = "/dashboard"

/*
 * The page may talk to this origin only and may not be framed (clickjacking of a
 * "Delete key" button). Styles allow inline `style` attributes, which React writes.
 */
const HTML_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin"
}

const notFound = (path: string) =>
  HttpServerResponse.unsafeJson({ detail: { code: "not_found", message: `No console file at ${path}` } }, { status: 404 })

/** Whether an Accept-Encoding header takes `coding` (named, and not with `q=0`). */
const accepts = (header: string, coding: string) =>
  header.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";").map((p) => p.trim())
    return name === coding && !params.some((p) => /^q=0(\.0*)?$/.test(p))
  })

const serve = (request: HttpServerRequest.HttpServerRequest, file: ConsoleFile) => {
  const headers: Record<string, string> = {
    "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
    "x-content-type-options": "nosniff",
    etag: file.etag,
    vary: "accept-encoding",
    ...(file.contentType.startsWith("text/html") ? HTML_HEADERS : {})
  }
  if (request.headers["if-none-match"] === file.etag) return HttpServerResponse.empty({ status: 304, headers })
  const accepted = request.headers["accept-encoding"] ?? ""
  const encoding = file.brotli !== undefined && accepts(accepted, "br") ? "br" : file.gzip !== undefined && accepts(accepted, "gzip") ? "gzip" : undefined
  const body = encoding === "br" ? file.brotli! : encoding === "gzip" ? file.gzip! : file.body
  return HttpServerResponse.uint8Array(body, {
    contentType: file.contentType,
    headers: encoding !== undefined ? { ...headers, "content-encoding": encoding } : headers
  })
}

/**
 * The developer console (packages/dashboard's build) at `/dashboard`: its hashed assets
 * cached for a year, `index.html` for every other path under it (the app routes in the
 * browser, so a bookmarked `/dashboard/deliveries?status=failed` loads), and `/` sent there.
 * With no build (tests, an API-only deployment) none of these routes exist and the server
 * starts as before. These are pages, not API, so they live beside the contract like
 * `/webhook/incoming`; they pass through the same request context (id, access line, metrics).
 */
export const ConsoleRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const dir = Option.getOrElse(config.dashboardDir, defaultConsoleDir)
    const files = loadConsoleFiles(dir)
    if (files === undefined) {
      if (Option.isSome(config.dashboardDir)) yield* Effect.logWarning(`DASHBOARD_DIR ${dir} holds no index.html: the console is not served`)
      return
    }
    const index = files.get("index.html")!
    const page = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const path = request.url.split("?")[0] ?? ""
      const name = path.slice(CONSOLE_PATH.length + 1)
      const file = files.get(name)
      if (file !== undefined && name !== "index.html") return serve(request, file)
      // A missing asset is a 404, never the page: a script tag given HTML fails confusingly.
      if (name.startsWith("assets/") || /\.[a-z0-9]+$/i.test(name)) return notFound(path)
      return serve(request, index)
    })
    for (const path of [CONSOLE_PATH, `${CONSOLE_PATH}/*`] as const) {
      yield* router.get(path, page)
      yield* router.head(path, page)
    }
    yield* router.get("/", HttpServerResponse.redirect(CONSOLE_PATH, { status: 302 }))
  })
)
