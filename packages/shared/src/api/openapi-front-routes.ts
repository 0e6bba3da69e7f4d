/**
 * The routes the server answers outside the HttpApi contract, as OpenAPI path items:
 * `/webhook/incoming` (the upstream's handshake and its signed POSTs, which must see the
 * exact bytes) and the signed media links of `/platform/v1/media-downloads/{token}`.
 * documentContract adds them to the generated document, so it describes every route.
 */

/** An OpenAPI fragment as JSON. */
type Json = Record<string, any>

const schema = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })
const json = (body: Json): Json => ({ content: { "application/json": { schema: body } } })
const oneOf = (...names: ReadonlyArray<string>): Json => ({ anyOf: names.map(schema) })

/** A coded error of DESIGN's shape, `{detail: {code, message}}`, with its code fixed. */
const coded = (code: string, extra: Json = {}): Json => ({
  type: "object",
  required: ["detail"],
  properties: {
    detail: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string", enum: [code] }, message: { type: "string" }, ...extra }
    }
  }
})

/** Schemas only these routes answer; the rest they share with the contract's routes. */
export const frontRouteSchemas: Json = {
  InboundAnswer: {
    description: "What the managed endpoint tells the upstream about a POST it took.",
    anyOf: [
      {
        type: "object",
        required: ["status"],
        properties: { status: { type: "string", enum: ["ignored"], description: "No platform channel has this upstream id." } }
      },
      {
        type: "object",
        required: ["status", "forwarded"],
        properties: {
          status: { type: "string", enum: ["platform"], description: "The traffic belongs to a platform channel." },
          forwarded: { type: "boolean", description: "Whether a raw forward was queued for it (SPEC §6.5)." },
          reason: { type: "string", enum: ["inbound_quota_exceeded"], description: "Why it was not forwarded, when the quota stopped it." }
        }
      }
    ]
  },
  InvalidBodyBody: coded("invalid_body"),
  ForbiddenBody: coded("forbidden"),
  PayloadTooLargeBody: coded("payload_too_large", { max_bytes: { type: "integer" } })
  // DatabaseUnavailableBody is the contract's own (errors.ts), declared on every operation.
}

const RETRY_AFTER = { "Retry-After": { $ref: "#/components/headers/Retry-After" } }

const databaseUnavailable: Json = {
  description: "The database is unreachable (database_unavailable); the upstream retries the POST",
  headers: RETRY_AFTER,
  ...json(schema("DatabaseUnavailableBody"))
}

const handshake: Json = {
  tags: ["Inbound"],
  operationId: "inbound.handshake",
  summary: "The upstream's verification handshake",
  description: "Answers `hub.challenge` when `hub.mode` is `subscribe` and `hub.verify_token` is the server's " +
    "META_VERIFY_TOKEN; no credential.",
  security: [],
  parameters: [
    { name: "hub.mode", in: "query", required: true, description: "Always `subscribe` for a handshake.", schema: { type: "string", enum: ["subscribe"] } },
    { name: "hub.verify_token", in: "query", required: true, description: "The verify token configured on the upstream app.", schema: { type: "string" } },
    { name: "hub.challenge", in: "query", required: true, description: "The value to echo back.", schema: { type: "string" } }
  ],
  responses: {
    "200": { description: "The challenge, echoed", content: { "text/plain": { schema: { type: "string" } } } },
    "403": { description: "Not a subscribe handshake, or the verify token does not match", ...json(schema("ForbiddenBody")) }
  }
}

const receive: Json = {
  tags: ["Inbound"],
  operationId: "inbound.receive",
  summary: "A signed notification from the upstream",
  description: "The exact bytes the upstream signed, checked against `X-Hub-Signature-256` (HMAC-SHA256 with the " +
    "app secret). Traffic of a platform channel becomes normalized events; the rest is answered `ignored`. " +
    "The answer comes after the commit, so a 5xx makes the upstream retry.",
  security: [],
  parameters: [
    {
      name: "X-Hub-Signature-256",
      in: "header",
      required: true,
      description: "`sha256=` and the hex HMAC-SHA256 of the body with the app secret.",
      schema: { type: "string", pattern: "^sha256=[0-9a-f]{64}$" }
    }
  ],
  requestBody: {
    required: true,
    description: "The upstream's notification (`object` and `entry[]`), at most 10 MB.",
    ...json({ type: "object", required: ["object", "entry"], properties: { object: { type: "string" }, entry: { type: "array", items: { type: "object" } } } })
  },
  responses: {
    "200": { description: "Taken (stored, updated, ignored or not forwarded)", ...json(schema("InboundAnswer")) },
    "400": { description: "The body is not a notification the server can read", ...json(schema("InvalidBodyBody")) },
    "401": { description: "X-Hub-Signature-256 is missing or does not match the body", ...json(schema("UnauthorizedBody")) },
    "413": { description: "The body is larger than 10 MB", ...json(schema("PayloadTooLargeBody")) },
    "503": databaseUnavailable
  }
}

const download: Json = {
  tags: ["Media"],
  operationId: "media.download",
  summary: "Download a media file through its short-lived link",
  description: "The link `GET /platform/v1/media/{media_id}/url` hands out; the HMAC-signed token is the " +
    "credential, so no key is sent. The bytes stream from the upstream with their MIME type.",
  security: [],
  parameters: [
    {
      name: "token",
      in: "path",
      required: true,
      description: "The signed token of the link (channel, media id and expiry).",
      schema: { type: "string", minLength: 1 }
    }
  ],
  responses: {
    "200": {
      description: "The file",
      headers: {
        "Cache-Control": { description: "Always `private, no-store`", schema: { type: "string" } }
      },
      content: { "*/*": { schema: { type: "string", format: "binary" } } }
    },
    "400": { description: "The channel is not a chat channel", ...json(schema("ChatOnlyBody")) },
    "404": { description: "The link is invalid or has expired, or the media is gone", ...json(schema("NotFoundBody")) },
    "422": { description: "The channel cannot be used", ...json(oneOf("ChannelUnusableBody", "ValidationFailedBody")) },
    "502": { description: "The upstream failed; the body says how", ...json(schema("SendUpstreamErrorBody")) },
    "503": {
      description: "The database is unreachable (database_unavailable: the channel could not be read); retry after Retry-After",
      headers: RETRY_AFTER,
      ...json(schema("DatabaseUnavailableBody"))
    }
  }
}

/** The path items of the routes outside the contract. */
export const frontRoutePaths: Json = {
  "/webhook/incoming": { get: handshake, post: receive },
  "/platform/v1/media-downloads/{token}": { get: download }
}

/** Their tag, beside the contract's groups. */
export const frontRouteTags: ReadonlyArray<Json> = [
  {
    name: "Inbound",
    description: "The managed endpoint the upstream posts to: its handshake and its signed notifications (SPEC §6.5)."
  }
]
