import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { createHash, randomBytes } from "node:crypto"
import { Chunk, Clock, Effect, Layer, Redacted, Stream } from "effect"
import { newGraphId, newMid, newTraceId, newWamid } from "./ids.js"
import {
  SANDBOX_ERROR_CASES,
  SANDBOX_EXPIRED_TOKEN,
  SANDBOX_MAGIC_CODES,
  SANDBOX_MAGIC_RECIPIENTS,
  type SandboxErrorCase
} from "./magic.js"
import { chatStatusPayload, socialReadPayload, templateStatusPayload } from "./payloads.js"
import { SandboxState, type SandboxTemplate } from "./state.js"

/** Where the simulator is mounted in the server (DESIGN §3). */
export const SANDBOX_GRAPH_PREFIX = "/__sandbox/graph"

type Json = Record<string, unknown>
type State = SandboxState

const CHAT_TYPES = new Set([
  "text",
  "template",
  "image",
  "video",
  "audio",
  "document",
  "sticker",
  "interactive",
  "location",
  "contacts",
  "reaction"
])

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

interface GraphErrorInput {
  readonly status: number
  readonly code: number
  readonly message: string
  readonly subcode?: number | undefined
  readonly type?: string | undefined
  readonly details?: string | undefined
  readonly user_title?: string | undefined
  readonly user_msg?: string | undefined
}

/** Meta's error envelope, byte for byte in shape. */
const graphError = (e: GraphErrorInput) =>
  HttpServerResponse.unsafeJson({
    error: {
      message: e.message,
      type: e.type ?? "OAuthException",
      code: e.code,
      ...(e.subcode !== undefined ? { error_subcode: e.subcode } : {}),
      ...(e.details !== undefined ? { error_data: { messaging_product: "whatsapp", details: e.details } } : {}),
      ...(e.user_title !== undefined ? { error_user_title: e.user_title, error_user_msg: e.user_msg ?? e.user_title } : {}),
      fbtrace_id: newTraceId()
    }
  }, { status: e.status, headers: { "x-fb-trace-id": newTraceId(), "www-authenticate": e.code === 190 ? "OAuth \"Facebook Platform\" \"invalid_token\"" : "" } })

const magicError = (c: SandboxErrorCase) =>
  graphError({ status: c.http_status, code: c.code, subcode: c.subcode, message: c.message, type: c.type, details: c.details })

const ERROR_BY_RECIPIENT = new Map(SANDBOX_ERROR_CASES.map((c) => [c.recipient, c]))

const unknownObject = (id: string, method: string) =>
  graphError({
    status: 400,
    code: 100,
    subcode: 33,
    type: "GraphMethodException",
    message:
      `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`
  })

/**
 * Media by id as Meta scopes it: with `phone_number_id` the lookup or delete "is only
 * processed if the ID matches the business phone number the media was uploaded on";
 * another number's media is the same unknown object as none.
 */
const mediaOf = (state: State, id: string, phoneNumberId: string | null) => {
  const m = state.media.get(id)
  return m !== undefined && (phoneNumberId === null || m.owner_id === phoneNumberId) ? m : undefined
}

const invalidParameter = (details: string) =>
  graphError({ status: 400, code: 100, message: "(#100) Invalid parameter", details })

const readJson = (req: HttpServerRequest.HttpServerRequest) =>
  req.text.pipe(
    Effect.map((t): Json => {
      if (t.trim() === "") return {}
      const v = JSON.parse(t) as unknown
      return typeof v === "object" && v !== null ? (v as Json) : {}
    }),
    Effect.orElseSucceed((): Json => ({ __invalid: true }))
  )

const readForm = (req: HttpServerRequest.HttpServerRequest) =>
  req.urlParamsBody.pipe(
    Effect.map((params): Record<string, string> => Object.fromEntries(params)),
    Effect.orElseSucceed(() => ({} as Record<string, string>))
  )

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

const str = (v: unknown): string | undefined => typeof v === "string" ? v : undefined

const handleChatSend = (state: State, pnid: string, body: Json) =>
  Effect.gen(function*() {
    if (body["messaging_product"] !== "whatsapp") {
      return invalidParameter("messaging_product must be whatsapp")
    }
    if (body["status"] === "read") {
      const messageId = str(body["message_id"])
      if (!messageId) return invalidParameter("message_id is required")
      state.markedRead.push({ sender_id: pnid, message_id: messageId, typing: body["typing_indicator"] !== undefined })
      return json({ success: true })
    }
    const to = str(body["to"])
    const type = str(body["type"]) ?? "text"
    if (!to) {
      return graphError({ status: 400, code: 131008, message: "(#131008) Required parameter is missing", details: "to is required" })
    }
    const magic = ERROR_BY_RECIPIENT.get(to)
    if (magic) return magicError(magic)
    if (!CHAT_TYPES.has(type) || typeof body[type] !== "object" || body[type] === null) {
      return graphError({
        status: 400,
        code: 131009,
        message: "(#131009) Parameter value is not valid",
        details: `the ${type} object is missing or the type is not supported`
      })
    }
    const id = newWamid(to)
    const now = yield* Clock.currentTimeMillis
    state.messages.push({ id, kind: "chat", sender_id: pnid, to, type, payload: body, at: now })
    const line = state.lineOf(pnid)
    const conversation_id = randomBytes(16).toString("hex")
    const status = (s: "sent" | "delivered" | "read" | "failed") => (nowMs: number) =>
      chatStatusPayload({ line, message_id: id, recipient_id: to, status: s, nowMs, conversation_id })
    const sequence = to === SANDBOX_MAGIC_RECIPIENTS.failedDelivery
      ? [status("sent"), status("failed")]
      : to === SANDBOX_MAGIC_RECIPIENTS.neverRead
      ? [status("sent"), status("delivered")]
      : [status("sent"), status("delivered"), status("read")]
    yield* state.scheduleCallbacks(sequence)
    return json({
      messaging_product: "whatsapp",
      contacts: [{ input: to, wa_id: to.replace(/\D/g, "") }],
      messages: [{ id, ...(type === "template" ? { message_status: "accepted" } : {}) }]
    })
  })

const handleSocialSend = (state: State, accountId: string, body: Json) =>
  Effect.gen(function*() {
    const recipient = str((body["recipient"] as Json | undefined)?.["id"])
    if (!recipient) return graphError({ status: 400, code: 100, message: "(#100) The parameter recipient is required" })
    const magic = ERROR_BY_RECIPIENT.get(recipient)
    if (magic) return magicError(magic)
    const action = str(body["sender_action"])
    if (action === "typing_on" || action === "typing_off" || action === "mark_seen") {
      state.markedRead.push({ sender_id: accountId, message_id: recipient, typing: action !== "mark_seen" })
      return json({ recipient_id: recipient })
    }
    const now = yield* Clock.currentTimeMillis
    if (action === "react" || action === "unreact") {
      state.messages.push({ id: "", kind: "social", sender_id: accountId, to: recipient, type: "reaction", payload: body, at: now })
      return json({ recipient_id: recipient })
    }
    const message = body["message"] as Json | undefined
    if (!message || (message["text"] === undefined && message["attachment"] === undefined)) {
      return graphError({ status: 400, code: 100, message: "(#100) Message is missing text or attachment" })
    }
    const attachment = message["attachment"] as Json | undefined
    const type = attachment ? String(attachment["type"]) : "text"
    const mid = newMid()
    state.messages.push({ id: mid, kind: "social", sender_id: accountId, to: recipient, type, payload: body, at: now })
    if (recipient !== SANDBOX_MAGIC_RECIPIENTS.neverRead && recipient !== SANDBOX_MAGIC_RECIPIENTS.failedDelivery) {
      yield* state.scheduleCallbacks([
        (nowMs) => socialReadPayload({ account_id: accountId, participant_id: recipient, mid, nowMs })
      ])
    }
    return json({ recipient_id: recipient, message_id: mid })
  })

const decideTemplate = (state: State, template: SandboxTemplate) =>
  state.scheduleCallbacks([
    (nowMs) => {
      const rejected = template.name.startsWith("reject_")
      template.status = rejected ? "REJECTED" : "APPROVED"
      template.rejected_reason = rejected ? "INVALID_FORMAT" : "NONE"
      return templateStatusPayload({
        waba_id: template.waba_id,
        template_id: template.id,
        name: template.name,
        language: template.language,
        event: template.status,
        reason: template.rejected_reason,
        nowMs
      })
    }
  ])

const templateView = (t: SandboxTemplate) => ({
  id: t.id,
  name: t.name,
  language: t.language,
  status: t.status,
  category: t.category,
  components: t.components,
  ...(t.parameter_format ? { parameter_format: t.parameter_format } : {}),
  ...(t.status === "REJECTED" ? { rejected_reason: t.rejected_reason } : {})
})

const handleTemplates = (state: State, method: string, waba: string, url: URL, req: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (method === "GET") {
      const limit = Math.max(1, Math.min(Number(url.searchParams.get("limit") ?? 25) || 25, 250))
      const start = Number(Buffer.from(url.searchParams.get("after") ?? "", "base64url").toString() || "0") || 0
      const name = url.searchParams.get("name")
      const all = [...state.templates.values()].filter((t) => t.waba_id === waba && (!name || t.name.includes(name)))
      const page = all.slice(start, start + limit)
      const cursor = (n: number) => Buffer.from(String(n)).toString("base64url")
      const more = start + limit < all.length
      return json({
        data: page.map(templateView),
        paging: {
          cursors: { before: cursor(start), after: cursor(start + page.length) },
          ...(more ? { next: `${state.config.metaGraphUrl}${url.pathname}?limit=${limit}&after=${cursor(start + page.length)}&access_token=EAAG-sandbox-redacted` } : {})
        }
      })
    }
    if (method === "POST") {
      const body = yield* readJson(req)
      const name = str(body["name"])
      const language = str(body["language"])
      const category = str(body["category"])
      if (!name || !/^[a-z0-9_]{1,512}$/.test(name)) return invalidParameter("name must be lower case letters, digits and underscores")
      if (!language) return invalidParameter("language is required")
      if (!category || !["UTILITY", "MARKETING", "AUTHENTICATION"].includes(category)) {
        return invalidParameter("category must be UTILITY, MARKETING or AUTHENTICATION")
      }
      if (!Array.isArray(body["components"])) return invalidParameter("components is required")
      const exists = [...state.templates.values()].some((t) => t.waba_id === waba && t.name === name && t.language === language)
      if (exists) {
        return graphError({
          status: 400,
          code: 100,
          subcode: 2388024,
          message: "Invalid parameter",
          user_title: "Message template already exists",
          user_msg: `There is already ${language} content for this template. You can create a new template and try again.`
        })
      }
      const template: SandboxTemplate = {
        id: newGraphId(),
        waba_id: waba,
        name,
        language,
        category,
        status: "PENDING",
        components: body["components"] as ReadonlyArray<unknown>,
        parameter_format: str(body["parameter_format"]) ?? null,
        rejected_reason: "NONE"
      }
      state.templates.set(template.id, template)
      yield* decideTemplate(state, template)
      return json({ id: template.id, status: "PENDING", category })
    }
    if (method === "DELETE") {
      const name = url.searchParams.get("name")
      const hsmId = url.searchParams.get("hsm_id")
      const matches = [...state.templates.values()].filter((t) =>
        t.waba_id === waba && t.name === name && (!hsmId || t.id === hsmId)
      )
      if (!name || matches.length === 0) {
        return graphError({
          status: 404,
          code: 100,
          subcode: 2593002,
          message: "Invalid parameter",
          user_title: "Message template not found",
          user_msg: `The message template ${name ?? ""} was not found.`
        })
      }
      for (const t of matches) state.templates.delete(t.id)
      return json({ success: true })
    }
    return unsupportedMethod(method)
  })

const unsupportedMethod = (method: string) =>
  graphError({ status: 400, code: 100, message: `(#100) Unsupported ${method.toLowerCase()} request.` })

const phoneNumberView = (state: State, pnid: string, fields: string | null) => {
  if (fields === "health_status") {
    const line = state.lineOf(pnid)
    const entity = (entity_type: string, id: string) => ({ entity_type, id, can_send_message: "AVAILABLE" })
    return {
      health_status: {
        can_send_message: "AVAILABLE",
        entities: [
          entity("PHONE_NUMBER", pnid),
          entity("WABA", line.waba_id),
          entity("BUSINESS", "sandbox-business"),
          entity("APP", state.config.metaAppId)
        ]
      },
      id: pnid
    }
  }
  return {
    id: pnid,
    display_phone_number: state.lineOf(pnid).display_phone_number,
    verified_name: "Sandbox Business",
    quality_rating: state.qualityRatings.get(pnid) ?? "GREEN",
    name_status: "APPROVED",
    code_verification_status: "VERIFIED",
    platform_type: "CLOUD_API",
    messaging_limit_tier: "TIER_1K",
    throughput: { level: "STANDARD" }
  }
}

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

  if (segments[0] === "__media" && segments[1] && method === "GET") {
    if (!token) return graphError({ status: 401, code: 190, message: "Invalid OAuth access token - Cannot parse access token" })
    const m = state.media.get(segments[1])
    if (!m) return HttpServerResponse.text("Not Found", { status: 404 })
    return HttpServerResponse.uint8Array(m.bytes, { contentType: m.mime_type, headers: { "content-length": String(m.bytes.length) } })
  }

  const [version, first, edge, ...rest] = segments
  if (!version || !/^v\d+\.\d+$/.test(version) || !first || rest.length > 0) {
    return graphError({ status: 400, code: 2500, type: "OAuthException", message: `Unknown path components: ${url.pathname}` })
  }

  if (first === "oauth" && edge === "access_token") {
    const params = method === "POST" ? yield* readForm(req) : Object.fromEntries(url.searchParams)
    if (params["client_id"] !== state.config.metaAppId) {
      return graphError({ status: 400, code: 101, message: "Error validating application. Invalid application ID." })
    }
    if (params["client_secret"] !== Redacted.value(state.config.metaAppSecret)) {
      return graphError({ status: 400, code: 1, message: "Error validating client secret." })
    }
    if (!params["code"]) return graphError({ status: 400, code: 100, message: "Missing code parameter." })
    if (params["code"] === SANDBOX_MAGIC_CODES.invalid) {
      return graphError({ status: 400, code: 100, subcode: 36007, message: "Invalid verification code format." })
    }
    if (params["code"] === SANDBOX_MAGIC_CODES.expired) return json({ access_token: SANDBOX_EXPIRED_TOKEN, token_type: "bearer" })
    return json({ access_token: `EAAG${randomBytes(48).toString("base64url").replace(/[-_]/g, "x")}`, token_type: "bearer" })
  }

  if (!token) {
    return graphError({ status: 400, code: 2500, message: "An active access token must be used to query information about the current application." })
  }
  if (token === SANDBOX_EXPIRED_TOKEN) {
    return magicError(SANDBOX_ERROR_CASES.find((c) => c.code === 190)!)
  }

  if (first === "me" && edge === "accounts" && method === "GET") {
    // Each user token (each login) has its own Page and Instagram account, stable for that token.
    const seed = createHash("sha256").update(token).digest()
    const digits = (from: number, n: number) => Array.from(seed.subarray(from, from + n), (b) => String(b % 10)).join("")
    return json({
      data: [{
        id: `1000${digits(0, 11)}`,
        name: "Sandbox Page",
        access_token: `EAAG${randomBytes(32).toString("hex")}`,
        instagram_business_account: { id: `178414${digits(11, 11)}`, username: "sandbox.business" }
      }],
      paging: { cursors: { before: "MA", after: "MA" } }
    })
  }

  if (first.startsWith("upload:") && edge === undefined && method === "POST") {
    const upload = state.uploads.get(first)
    if (!upload) return unknownObject(first, method)
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
  }

  if (edge === undefined) {
    if (method === "GET") {
      if (url.searchParams.has("phone_number_id")) {
        const m = mediaOf(state, first, url.searchParams.get("phone_number_id"))
        if (!m) return unknownObject(first, method)
        return json({
          messaging_product: "whatsapp",
          url: `${state.config.metaGraphUrl}/__media/${m.id}?hash=${m.sha256.slice(0, 16)}`,
          mime_type: m.mime_type,
          sha256: m.sha256,
          file_size: m.bytes.length,
          id: m.id
        })
      }
      const t = state.templates.get(first)
      if (t) return json(templateView(t))
      return json(phoneNumberView(state, first, url.searchParams.get("fields")))
    }
    if (method === "DELETE") {
      if (!mediaOf(state, first, url.searchParams.get("phone_number_id"))) return unknownObject(first, method)
      state.media.delete(first)
      return json({ success: true })
    }
    if (method === "POST") {
      const body = yield* readJson(req)
      const t = state.templates.get(first)
      if (t) {
        if (t.status === "PENDING") {
          return graphError({
            status: 400,
            code: 100,
            subcode: 2388040,
            message: "Invalid parameter",
            user_title: "Template can't be edited",
            user_msg: "Only approved, rejected or paused templates can be edited."
          })
        }
        if (Array.isArray(body["components"])) t.components = body["components"]
        if (typeof body["category"] === "string") t.category = body["category"]
        t.status = "PENDING"
        yield* decideTemplate(state, t)
        return json({ success: true })
      }
      if (typeof body["pin"] === "string") {
        if (!/^\d{6}$/.test(body["pin"])) return invalidParameter("pin must be 6 digits")
        state.pins.set(first, body["pin"])
        return json({ success: true })
      }
      return unsupportedMethod(method)
    }
    return unsupportedMethod(method)
  }

  switch (edge) {
    case "messages": {
      if (method !== "POST") return unsupportedMethod(method)
      const body = yield* readJson(req)
      return body["recipient"] !== undefined || body["sender_action"] !== undefined
        ? yield* handleSocialSend(state, first, body)
        : yield* handleChatSend(state, first, body)
    }
    case "media":
    case "message_attachments": {
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
        owner_id: first,
        bytes: filePart.file.bytes,
        mime_type: (typeField && "value" in typeField ? typeField.value : undefined) ?? filePart.file.type,
        filename: filePart.file.name,
        sha256: createHash("sha256").update(filePart.file.bytes).digest("hex")
      })
      return edge === "media" ? json({ id }) : json({ attachment_id: id })
    }
    case "message_templates":
      return yield* handleTemplates(state, method, first, url, req)
    case "uploads": {
      if (method !== "POST") return unsupportedMethod(method)
      if (first !== state.config.metaAppId) return unknownObject(first, method)
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
    case "whatsapp_business_profile": {
      if (method === "GET") {
        return json({ data: [{ messaging_product: "whatsapp", ...(state.profiles.get(first) ?? { about: "Sandbox business", websites: [] }) }] })
      }
      if (method !== "POST") return unsupportedMethod(method)
      const body = yield* readJson(req)
      if (body["messaging_product"] !== "whatsapp") return invalidParameter("messaging_product is required")
      const { messaging_product: _, profile_picture_handle, ...fields } = body
      // Characters, as the API's own bound counts them (an emoji is one), not UTF-16 code units.
      if (typeof fields["about"] === "string" && [...fields["about"]].length > 139) return invalidParameter("about is at most 139 characters")
      const current = state.profiles.get(first) ?? { about: "Sandbox business", websites: [] }
      state.profiles.set(first, {
        ...current,
        ...fields,
        ...(typeof profile_picture_handle === "string" ? { profile_picture_url: `${state.config.metaGraphUrl}/__media/profile-${first}` } : {})
      })
      return json({ success: true })
    }
    case "block_users": {
      const blocked = state.blocked.get(first) ?? new Set<string>()
      state.blocked.set(first, blocked)
      if (method === "GET") return json({ data: [...blocked].map((wa_id) => ({ messaging_product: "whatsapp", wa_id })) })
      const body = yield* readJson(req)
      const users = Array.isArray(body["block_users"]) ? (body["block_users"] as Array<Json>).map((u) => String(u["user"] ?? "")) : []
      if (users.length === 0) return invalidParameter("block_users is required")
      if (method !== "POST" && method !== "DELETE") return unsupportedMethod(method)
      const echoed = users.map((input) => ({ input, wa_id: input.replace(/\D/g, "") }))
      // Like Meta: only users who wrote in the last 24 hours can be blocked; the magic
      // re-engagement number plays one who did not, answered per user in a mixed 400.
      const refused = echoed.filter((u) => u.wa_id === SANDBOX_MAGIC_RECIPIENTS.reengagementRequired)
      const done = echoed.filter((u) => u.wa_id !== SANDBOX_MAGIC_RECIPIENTS.reengagementRequired)
      for (const u of done) {
        if (method === "POST") blocked.add(u.wa_id)
        else blocked.delete(u.wa_id)
      }
      const result = {
        messaging_product: "whatsapp",
        block_users: {
          [method === "POST" ? "added_users" : "removed_users"]: done,
          ...(refused.length > 0
            ? {
              failed_users: refused.map((u) => ({
                ...u,
                errors: [{ message: "Re-engagement required", code: 131047, error_data: { details: "User has not messaged in the last 24 hours" } }]
              }))
            }
            : {})
        }
      }
      if (refused.length === 0) return json(result)
      return json({
        ...result,
        error: {
          message: "(#139100) Failed to block/unblock users",
          type: "OAuthException",
          code: 139100,
          error_data: { details: "Failed to block some users, see the block_users response list for details" },
          fbtrace_id: newTraceId()
        }
      }, 400)
    }
    case "register": {
      if (method !== "POST") return unsupportedMethod(method)
      const body = yield* readJson(req)
      if (body["messaging_product"] !== "whatsapp") return invalidParameter("messaging_product is required")
      if (typeof body["pin"] !== "string" || !/^\d{6}$/.test(body["pin"])) return invalidParameter("pin must be 6 digits")
      state.registered.add(first)
      state.pins.set(first, body["pin"])
      return json({ success: true })
    }
    case "subscribed_apps": {
      if (method === "POST") {
        state.subscribedWabas.add(first)
        return json({ success: true })
      }
      if (method === "GET") {
        return json({ data: state.subscribedWabas.has(first) ? [{ whatsapp_business_api_data: { id: state.config.metaAppId, name: "Sandbox App" } }] : [] })
      }
      return unsupportedMethod(method)
    }
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
