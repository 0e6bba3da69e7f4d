/**
 * The simulator's resumable uploads (the handles template header media and profile
 * pictures are made of): `/{app-id}/uploads` opens a session, a POST to the
 * session's id sends the whole file and answers its handle.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { createHash, randomBytes } from "node:crypto"
import { Effect } from "effect"
import { graphError, invalidParameter, json, unknownObject, unsupportedMethod } from "./graph-replies.js"
import type { SandboxState } from "./state.js"

type State = SandboxState

/** A POST to the app's `uploads` edge: a session for one file of a type Meta takes. */
export const createUploadSession = (state: State, method: string, appId: string, url: URL) => {
  if (method !== "POST") return unsupportedMethod(method)
  if (appId !== state.config.metaAppId) return unknownObject(appId, method)
  const fileLength = Number(url.searchParams.get("file_length"))
  const fileType = url.searchParams.get("file_type") ?? ""
  if (!Number.isInteger(fileLength) || fileLength <= 0) return invalidParameter("file_length is required")
  if (!/^(image\/(jpeg|png)|video\/mp4|application\/pdf)$/.test(fileType)) {
    return invalidParameter("file_type must be image/jpeg, image/png, video/mp4 or application/pdf")
  }
  const id = `upload:${Buffer.from(`${randomBytes(8).toString("hex")}:${fileType}`).toString("base64url")}`
  state.uploads.set(id, {
    id,
    file_name: url.searchParams.get("file_name") ?? "file",
    file_length: fileLength,
    file_type: fileType,
    handle: null
  })
  return json({ id: `${id}?sig=${randomBytes(8).toString("hex")}` })
}

/** A POST to an `upload:` session id: the file in one piece (`file_offset: 0`), under OAuth authorization. */
export const uploadFile = (
  state: State,
  method: string,
  sessionId: string,
  authHeader: string,
  req: HttpServerRequest.HttpServerRequest
) =>
  Effect.gen(function*() {
    const upload = state.uploads.get(sessionId)
    if (!upload) return unknownObject(sessionId, method)
    if (!/^OAuth\s/i.test(authHeader)) {
      return graphError({ status: 400, code: 190, message: "Invalid OAuth access token - the upload endpoint needs OAuth authorization" })
    }
    if (req.headers["file_offset"] !== "0") return invalidParameter("file_offset must be 0 for a new upload")
    const bytes = new Uint8Array(yield* Effect.orElseSucceed(req.arrayBuffer, () => new ArrayBuffer(0)))
    if (bytes.length !== upload.file_length) {
      return invalidParameter(`expected ${upload.file_length} bytes, got ${bytes.length}`)
    }
    upload.handle = `4::${Buffer.from(`${upload.file_type}:${createHash("sha256").update(bytes).digest("hex").slice(0, 24)}`).toString("base64")}`
    return json({ h: upload.handle })
  })
