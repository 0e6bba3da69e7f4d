import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect } from "effect"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

export const DOCS_PATH = "/platform/v1/docs"

/*
 * GET /platform/v1/docs: the API reference, Scalar's standalone page over the
 * OpenAPI document, as @effect/platform's HttpApiScalar renders it. Scalar's
 * script (6 MB of JavaScript, which @effect/platform ships as a string in the
 * module below) is loaded on the first request and the page built once then:
 * HttpApiScalar.layer builds it at start, which held about 13 MB of heap in
 * every process (the module's text and the page) whether or not anyone read the
 * docs. The module is not in the package's exports map, so it is imported by
 * its path next to HttpApiScalar's own; the docs test fails if a release moves it.
 */
const scalarScript = Effect.sync(() => {
  const require = createRequire(import.meta.url)
  const scalar = require.resolve("@effect/platform/HttpApiScalar")
  return (require(join(dirname(scalar), "internal", "httpApiScalar.js")) as { readonly javascript: string }).javascript
})

const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, "&quot;").replace(/'/g, "&#39;")
/** JSON inside a <script> block: no `<` that could close it, no line terminator that breaks a JS string. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))

const page = (spec: OpenApi.OpenAPISpec, script: string) => {
  const description = spec.info.description
    ? `<meta name="description" content="${escapeAttribute(spec.info.description)}"/>\n    ` +
      `<meta name="og:description" content="${escapeAttribute(spec.info.description)}"/>`
    : ""
  return `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeText(spec.info.title)}</title>
    ${description}
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">
      ${scriptJson(spec)}
    </script>
    <script>
      document.getElementById('api-reference').dataset.configuration = JSON.stringify(${scriptJson({ _integration: "html" })})
    </script>
    <script>${script}</script>
  </body>
</html>`
}

/** The docs route on the API's router; the page is built by its first request and kept. */
export const ApiDocsRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const html = yield* Effect.cached(Effect.map(scalarScript, (script) => page(OpenApi.fromApi(api), script)))
    yield* router.get(DOCS_PATH, Effect.map(html, (body) => HttpServerResponse.html(body)))
  })
)
