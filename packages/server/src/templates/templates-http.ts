import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CurrentPrincipal, PlatformApi, ValidationFailed } from "@platform/shared"
import { Effect } from "effect"
import { formParts, isMultipart } from "../http/file-form.js"
import { Templates } from "./templates.js"

export const TemplatesLive = HttpApiBuilder.group(PlatformApi, "templates", (handlers) =>
  Effect.gen(function*() {
    const templates = yield* Templates
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(account, (a) => templates.create(a, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => templates.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => templates.get(a, path.template_id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(account, (a) => templates.update(a, path.template_id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(account, (a) => templates.delete(a, path.template_id)))
      .handle("sync", ({ payload }) => Effect.flatMap(account, (a) => templates.sync(a, payload)))
      // Raw: the multipart body is streamed and read in order (channel_id, then file), as on POST /media.
      .handleRaw("uploadHeaderMedia", ({ request }) =>
        Effect.gen(function*() {
          const accountId = yield* account
          if (!isMultipart(request)) {
            return yield* new ValidationFailed({
              detail: [{ loc: ["body", "file"], msg: "send multipart/form-data with channel_id and then file", type: "value_error", input: null, ctx: {} }]
            })
          }
          // A refusal can come before the file was read to its end: close the connection
          // so the unread rest of the body is never taken for the next request on it.
          yield* HttpApp.appendPreResponseHandler((_request, response) =>
            Effect.succeed(response.status >= 400 ? HttpServerResponse.setHeader(response, "connection", "close") : response)
          )
          const parts = yield* formParts(request)
          const query = new URL(request.url, "http://localhost").searchParams
          const length = Number(request.headers["content-length"])
          return yield* templates.uploadHeaderMedia(
            accountId,
            parts,
            query.get("channel_id") ?? undefined,
            Number.isFinite(length) ? length : undefined
          )
        }))
  }))
