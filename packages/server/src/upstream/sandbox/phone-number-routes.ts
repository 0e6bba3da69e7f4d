/**
 * The simulator's phone numbers: a number by id (its profile or `health_status`),
 * its two-step verification PIN, `/{phone-number-id}/whatsapp_business_profile` and
 * `/{phone-number-id}/block_users`.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { invalidParameter, type Json, json, readJson, unsupportedMethod } from "./graph-replies.js"
import { newTraceId } from "./ids.js"
import { SANDBOX_MAGIC_RECIPIENTS } from "./magic.js"
import type { SandboxState } from "./state.js"

type State = SandboxState

export const phoneNumberView = (state: State, pnid: string, fields: string | null) => {
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

/** A POST to a phone number's id with `pin`: sets its two-step verification PIN. */
export const setPin = (state: State, pnid: string, pin: string) => {
  if (!/^\d{6}$/.test(pin)) return invalidParameter("pin must be 6 digits")
  state.pins.set(pnid, pin)
  return json({ success: true })
}

export const businessProfile = (state: State, method: string, pnid: string, req: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (method === "GET") {
      return json({ data: [{ messaging_product: "whatsapp", ...(state.profiles.get(pnid) ?? { about: "Sandbox business", websites: [] }) }] })
    }
    if (method !== "POST") return unsupportedMethod(method)
    const body = yield* readJson(req)
    if (body["messaging_product"] !== "whatsapp") return invalidParameter("messaging_product is required")
    const { messaging_product: _, profile_picture_handle, ...fields } = body
    // Characters, as the API's own bound counts them (an emoji is one), not UTF-16 code units.
    if (typeof fields["about"] === "string" && [...fields["about"]].length > 139) return invalidParameter("about is at most 139 characters")
    const current = state.profiles.get(pnid) ?? { about: "Sandbox business", websites: [] }
    state.profiles.set(pnid, {
      ...current,
      ...fields,
      ...(typeof profile_picture_handle === "string" ? { profile_picture_url: `${state.config.metaGraphUrl}/__media/profile-${pnid}` } : {})
    })
    return json({ success: true })
  })

export const blockUsers = (state: State, method: string, pnid: string, req: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const blocked = state.blocked.get(pnid) ?? new Set<string>()
    state.blocked.set(pnid, blocked)
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
  })
