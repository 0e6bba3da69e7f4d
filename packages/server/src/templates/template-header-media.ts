import * as Multipart from "@effect/platform/Multipart"
import { ValidationFailed } from "@platform/shared"
import { Chunk, Data, Effect, Stream } from "effect"
import { bodyIssue, channelFileForm, unreadableForm } from "../http/file-form.js"
import { baseMime, contentMatches } from "../media/media.js"

const MB = 1024 * 1024

/**
 * What Meta takes as a template header sample through the resumable upload
 * (WhatsApp "Supported media types" for headers): JPEG/PNG images, MP4 video, PDF documents.
 */
export const HEADER_MEDIA: Readonly<Record<string, number>> = {
  "image/jpeg": 5 * MB,
  "image/png": 5 * MB,
  "video/mp4": 16 * MB,
  "application/pdf": 100 * MB
}

const LARGEST = Math.max(...Object.values(HEADER_MEDIA))

export interface HeaderFile {
  readonly data: Uint8Array
  readonly mime_type: string
  readonly filename: string
}

class Refused extends Data.TaggedError("Refused")<{ readonly error: ValidationFailed }> {}

const sizeText = (bytes: number) => `${bytes / MB} MB`

/** The bytes of a file part, refused as soon as they pass the cap of its type or do not start like it. */
const readFile = (part: Multipart.File) =>
  Effect.gen(function*() {
    const mime = baseMime(part.contentType)
    const cap = HEADER_MEDIA[mime]
    if (cap === undefined) {
      return yield* bodyIssue(["file"], `unsupported header media type ${mime || "(none)"}; supported: ${Object.keys(HEADER_MEDIA).join(", ")}`, part.name, { mime_type: mime })
    }
    let total = 0
    const chunks = yield* part.content.pipe(
      Stream.mapError((e) => new Refused({ error: unreadableForm(e) })),
      Stream.mapEffect((bytes) => {
        if (total === 0 && bytes.length > 0 && !contentMatches(mime, bytes)) {
          return Effect.fail(new Refused({ error: bodyIssue(["file"], `the file's content is not ${mime}`, part.name, { mime_type: mime }) }))
        }
        total += bytes.length
        return total > cap
          ? Effect.fail(new Refused({ error: bodyIssue(["file"], `${mime} header samples are at most ${sizeText(cap)}`, part.name, { max_bytes: cap }) }))
          : Effect.succeed(bytes)
      }),
      Stream.runCollect,
      Effect.catchTag("Refused", (r) => Effect.fail(r.error))
    )
    if (total === 0) return yield* bodyIssue(["file"], "the file is empty", part.name)
    const data = new Uint8Array(total)
    let offset = 0
    for (const c of Chunk.toReadonlyArray(chunks)) {
      data.set(c, offset)
      offset += c.length
    }
    return { data, mime_type: mime, filename: part.name || "file" } satisfies HeaderFile
  })

/**
 * The form of POST /templates/header-media (channel-file-form.ts): `withChannel` runs
 * with the channel id before any byte of the file is read (a bad channel reads
 * nothing), then the file is read whole, refused past its type's cap.
 */
export const readHeaderMediaForm = <A, E, R>(
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  channelIdFromQuery: string | undefined,
  declaredLength: number | undefined,
  withChannel: (channelId: number) => Effect.Effect<A, E, R>
) =>
  declaredLength !== undefined && declaredLength > LARGEST + 64 * 1024
    ? Effect.fail(bodyIssue(["file"], `the request exceeds the largest header sample (${sizeText(LARGEST)} for documents)`, null, { max_bytes: LARGEST }))
    : channelFileForm(parts, channelIdFromQuery, (channelId, part) =>
      Effect.gen(function*() {
        const use = yield* withChannel(channelId)
        return { use, file: yield* readFile(part) }
      }))
