import { Multipart } from "@effect/platform"
import { ValidationFailed } from "@platform/shared"
import { Effect, Option, Stream } from "effect"

/** A 422 at `body.<loc>`, as the upload routes answer a bad form. */
export const bodyIssue = (loc: ReadonlyArray<string | number>, msg: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new ValidationFailed({ detail: [{ loc: ["body", ...loc], msg, type: "value_error", input: input ?? null, ctx }] })

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
            : Effect.fail(bodyIssue(["file"], `the multipart body could not be read (${e.value.reason})`, null))
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
