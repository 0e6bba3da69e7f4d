/**
 * The simulator's media: uploads to `/{phone-number-id}/media` (WhatsApp) and
 * `/{page-id}/message_attachments` (Messenger, Instagram), a media id's URL and its
 * deletion, and the bytes behind the URL at `/__media/{id}`.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import { createHash } from "node:crypto"
import { Chunk, Effect, Stream } from "effect"
import { graphError, invalidParameter, json, unknownObject, unsupportedMethod } from "./graph-replies.js"
import { newGraphId } from "./ids.js"
import type { SandboxState } from "./state.js"

type State = SandboxState

/**
 * Media by id as Meta scopes it: with `phone_number_id` the lookup or delete "is only
 * processed if the ID matches the business phone number the media was uploaded on";
 * another number's media is the same unknown object as none.
 */
const mediaOf = (state: State, id: string, phoneNumberId: string | null) => {
  const m = state.media.get(id)
  return m !== undefined && (phoneNumberId === null || m.owner_id === phoneNumberId) ? m : undefined
}

type FormPart =
  | { readonly key: string; readonly file: { readonly name: string; readonly type: string; readonly bytes: Uint8Array } }
  | { readonly key: string; readonly value: string }

const readMultipart = (req: HttpServerRequest.HttpServerRequest) =>
  req.multipartStream.pipe(
    Stream.mapEffect((part): Effect.Effect<FormPart, Multipart.MultipartError> =>
      Multipart.isFile(part)
        ? Effect.map(part.contentEffect, (bytes) => ({ key: part.key, file: { name: part.name, type: part.contentType, bytes } }))
        : Multipart.isField(part)
        ? Effect.succeed({ key: part.key, value: part.value })
        : Effect.succeed({ key: "", value: "" })
    ),
    Stream.runCollect,
    Effect.map(Chunk.toReadonlyArray)
  )

/** The bytes behind a media URL; like Meta's, it needs an access token. */
export const mediaDownload = (state: State, id: string, token: string) => {
  if (!token) return graphError({ status: 401, code: 190, message: "Invalid OAuth access token - Cannot parse access token" })
  const m = state.media.get(id)
  if (!m) return HttpServerResponse.text("Not Found", { status: 404 })
  return HttpServerResponse.uint8Array(m.bytes, { contentType: m.mime_type, headers: { "content-length": String(m.bytes.length) } })
}

/** A GET of a media id with `phone_number_id`: the URL to download it from, and what it is. */
export const getMedia = (state: State, id: string, phoneNumberId: string | null, method: string) => {
  const m = mediaOf(state, id, phoneNumberId)
  if (!m) return unknownObject(id, method)
  return json({
    messaging_product: "whatsapp",
    url: `${state.config.metaGraphUrl}/__media/${m.id}?hash=${m.sha256.slice(0, 16)}`,
    mime_type: m.mime_type,
    sha256: m.sha256,
    file_size: m.bytes.length,
    id: m.id
  })
}

export const deleteMedia = (state: State, id: string, phoneNumberId: string | null, method: string) => {
  if (!mediaOf(state, id, phoneNumberId)) return unknownObject(id, method)
  state.media.delete(id)
  return json({ success: true })
}

/** A multipart POST of one file; WhatsApp also asks for `messaging_product`. */
export const uploadMedia = (
  state: State,
  method: string,
  edge: "media" | "message_attachments",
  ownerId: string,
  req: HttpServerRequest.HttpServerRequest
) =>
  Effect.gen(function*() {
    if (method !== "POST") return unsupportedMethod(method)
    const parts = yield* readMultipart(req).pipe(Effect.orElseSucceed((): ReadonlyArray<FormPart> => []))
    const filePart = parts.find((p) => p.key === "file" || p.key === "filedata")
    if (!filePart || !("file" in filePart)) {
      return graphError({ status: 400, code: 100, message: "(#100) The parameter file is required" })
    }
    const typeField = parts.find((p) => p.key === "type")
    if (edge === "media" && !parts.some((p) => p.key === "messaging_product" && "value" in p && p.value === "whatsapp")) {
      return invalidParameter("messaging_product is required")
    }
    const id = newGraphId()
    state.media.set(id, {
      id,
      owner_id: ownerId,
      bytes: filePart.file.bytes,
      mime_type: (typeField && "value" in typeField ? typeField.value : undefined) ?? filePart.file.type,
      filename: filePart.file.name,
      sha256: createHash("sha256").update(filePart.file.bytes).digest("hex")
    })
    return edge === "media" ? json({ id }) : json({ attachment_id: id })
  })
