import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import { NodeHttpServerRequest, NodeMultipart } from "@effect/platform-node"
import { ValidationFailed } from "@platform/shared"
import { Cause, Effect, Option, Stream } from "effect"
import { type Duplex, PassThrough } from "node:stream"
import { MIMEType } from "node:util"

/** A 422 at `body.<loc>`, as the upload routes answer a bad form. */
export const bodyIssue = (loc: ReadonlyArray<string | number>, msg: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new ValidationFailed({ detail: [{ loc: ["body", ...loc], msg, type: "value_error", input: input ?? null, ctx }] })

/** Whether the request says it sends a multipart form (any parameters, any case). */
export const isMultipart = (request: HttpServerRequest.HttpServerRequest) =>
  /^\s*multipart\/form-data\b/i.test(request.headers["content-type"] ?? "")

const noBoundary = (contentType: string) =>
  new ValidationFailed({
    detail: [{
      loc: ["header", "content-type"],
      msg: "multipart/form-data needs its boundary: Content-Type: multipart/form-data; boundary=<1 to 70 characters>",
      type: "content_type",
      input: contentType,
      ctx: {}
    }]
  })

/** The boundary of a multipart/form-data Content-Type, when it names one RFC 2046 allows (1 to 70 characters). */
const boundaryOf = (contentType: string): string | undefined => {
  try {
    const type = new MIMEType(contentType)
    const boundary = type.essence === "multipart/form-data" ? type.params.get("boundary") : null
    return boundary !== null && boundary.length >= 1 && boundary.length <= 70 ? boundary : undefined
  } catch {
    return undefined
  }
}

/** Why the parser stopped: the body ended before its closing boundary (an empty body too). */
class BodyCutShort extends Error {
  readonly _tag = "EndNotReached"
  constructor() {
    super("the multipart body ended before its closing boundary")
  }
}

/** The parser found no boundary in a Content-Type that MIMEType read one from. */
class BoundaryRefused extends Error {
  constructor(readonly contentType: string) {
    super("the multipart parser found no boundary")
  }
}

/*
 * The multipart parser under @effect/platform-node (multipasta 0.2) ends its stream of parts
 * only when it reads the closing boundary: a body that ends before it (an empty one, one cut
 * inside a part's headers) left the stream waiting forever and the request unanswered. The
 * body reaches the parser through this stream, which watches the parser it is piped into:
 * when the parser has taken the whole body ('finish') without ending or failing, it fails it.
 */
class WatchedBody extends PassThrough {
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    const parser = destination as unknown as Duplex
    let ended = false
    let failed = false
    const push = parser.push.bind(parser)
    parser.push = (chunk: unknown, encoding?: BufferEncoding) => {
      if (chunk === null) ended = true
      return push(chunk, encoding)
    }
    parser.once("error", () => {
      failed = true
    })
    parser.once("finish", () => {
      if (!ended && !failed) parser.destroy(new BodyCutShort())
    })
    return super.pipe(destination, options)
  }
}

/**
 * The parts of a multipart/form-data request, streamed as they arrive. A Content-Type without
 * a boundary is a 422 at the header before anything is read, and a body that ends before its
 * closing boundary fails the stream (see WatchedBody) instead of leaving it waiting.
 */
export const formParts = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Stream.Stream<Multipart.Part, Multipart.MultipartError>, ValidationFailed> =>
  Effect.suspend(() => {
    const contentType = request.headers["content-type"] ?? ""
    if (boundaryOf(contentType) === undefined) return Effect.fail(noBoundary(contentType))
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    return Effect.succeed(
      Stream.suspend(() => {
        const body = new WatchedBody()
        source.pipe(body)
        return NodeMultipart.stream(body, source.headers)
      }).pipe(
        // The parser reads parameters more strictly than MIMEType (`boundary=a; b` has none for
        // it) and throws while it is built: the same missing boundary.
        Stream.catchAllCause((cause) =>
          Cause.isDie(cause) && !Cause.isInterrupted(cause)
            ? Stream.fail(new Multipart.MultipartError({ reason: "Parse", cause: new BoundaryRefused(contentType) }))
            : Stream.failCause(cause)
        )
      )
    )
  })

/** The 422 of a form that could not be read, saying why. */
export const unreadableForm = (error: Multipart.MultipartError): ValidationFailed =>
  error.cause instanceof BoundaryRefused
    ? noBoundary(error.cause.contentType)
    : bodyIssue(
      ["file"],
      error.cause instanceof BodyCutShort ? error.cause.message : `the multipart body could not be read (${error.reason})`,
      null
    )

const unknownField = (key: string, input: unknown) => bodyIssue([key], "unknown field (expected channel_id and file)", input)

/**
 * The multipart form of the upload routes (POST /media, POST /templates/header-media):
 * `channel_id`, a field before `file` or the query's, then `file`. `onFile` runs when the
 * file part arrives, with the channel id, before any byte of the file is read (a bad or
 * foreign channel reads nothing), inside the form's scope (the part's bytes can still be
 * pulled). An unknown field, a channel id that is not a positive decimal integer, a
 * missing file and an unreadable body are 422s.
 */
export const channelFileForm = <A, E, R>(
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  channelIdFromQuery: string | undefined,
  onFile: (channelId: number, file: Multipart.File) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ValidationFailed, R> =>
  Effect.scoped(Effect.gen(function*() {
    const pull = yield* Stream.toPull(parts)
    let channelId = channelIdFromQuery
    for (;;) {
      const chunk = yield* pull.pipe(
        Effect.map(Option.some),
        Effect.catchAll((e) =>
          Option.isNone(e)
            ? Effect.succeedNone
            : Effect.fail(unreadableForm(e.value))
        )
      )
      if (Option.isNone(chunk)) break
      for (const part of chunk.value) {
        if (Multipart.isField(part)) {
          if (part.key !== "channel_id") return yield* unknownField(part.key, part.value)
          channelId = part.value
          continue
        }
        if (!Multipart.isFile(part)) continue
        if (part.key !== "file") return yield* unknownField(part.key, null)
        const id = Number(channelId)
        if (!/^\d+$/.test(channelId ?? "") || !Number.isSafeInteger(id) || id <= 0) {
          return yield* bodyIssue(
            ["channel_id"],
            channelId === undefined ? "channel_id is required before file" : "must be an integer",
            channelId
          )
        }
        return yield* onFile(id, part)
      }
    }
    return yield* bodyIssue(["file"], "file is required", null)
  }))
