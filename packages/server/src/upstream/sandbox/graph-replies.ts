/**
 * What every route of the Graph API simulator shares: Meta's reply shapes (its error
 * envelope and the errors it answers most) and reading a JSON or form body the way
 * Graph tolerates them.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { newTraceId } from "./ids.js"
import type { SandboxErrorCase } from "./magic.js"

export type Json = Record<string, unknown>

export const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

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
export const graphError = (e: GraphErrorInput) =>
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

export const magicError = (c: SandboxErrorCase) =>
  graphError({ status: c.http_status, code: c.code, subcode: c.subcode, message: c.message, type: c.type, details: c.details })

export const unknownObject = (id: string, method: string) =>
  graphError({
    status: 400,
    code: 100,
    subcode: 33,
    type: "GraphMethodException",
    message:
      `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`
  })

export const invalidParameter = (details: string) =>
  graphError({ status: 400, code: 100, message: "(#100) Invalid parameter", details })

export const unsupportedMethod = (method: string) =>
  graphError({ status: 400, code: 100, message: `(#100) Unsupported ${method.toLowerCase()} request.` })

export const readJson = (req: HttpServerRequest.HttpServerRequest) =>
  req.text.pipe(
    Effect.map((t): Json => {
      if (t.trim() === "") return {}
      const v = JSON.parse(t) as unknown
      return typeof v === "object" && v !== null ? (v as Json) : {}
    }),
    Effect.orElseSucceed((): Json => ({ __invalid: true }))
  )

export const readForm = (req: HttpServerRequest.HttpServerRequest) =>
  req.urlParamsBody.pipe(
    Effect.map((params): Record<string, string> => Object.fromEntries(params)),
    Effect.orElseSucceed(() => ({} as Record<string, string>))
  )

export const str = (v: unknown): string | undefined => typeof v === "string" ? v : undefined
