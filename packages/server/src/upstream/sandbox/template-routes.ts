/**
 * The simulator's message templates: `/{waba-id}/message_templates` (list, create,
 * delete by name) and a template by id (read, edit). A new or edited template is
 * decided by a status callback: names starting `reject_` are rejected, the rest
 * approved, except names starting `review_`, which stay under review (no callback)
 * so that what a pending template refuses can be tried at leisure.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { graphError, invalidParameter, type Json, json, readJson, str, unsupportedMethod } from "./graph-replies.js"
import { newGraphId } from "./ids.js"
import { templateStatusPayload } from "./payloads.js"
import type { SandboxState, SandboxTemplate } from "./state.js"

type State = SandboxState

const decideTemplate = (state: State, template: SandboxTemplate) =>
  template.name.startsWith("review_") ? Effect.void : state.scheduleCallbacks([
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

export const templateView = (t: SandboxTemplate) => ({
  id: t.id,
  name: t.name,
  language: t.language,
  status: t.status,
  category: t.category,
  components: t.components,
  ...(t.parameter_format ? { parameter_format: t.parameter_format } : {}),
  ...(t.status === "REJECTED" ? { rejected_reason: t.rejected_reason } : {})
})

export const handleTemplates = (state: State, method: string, waba: string, url: URL, req: HttpServerRequest.HttpServerRequest) =>
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

/** A POST to a template's id: Meta edits only an approved, rejected or paused template, and decides it again. */
export const editTemplate = (state: State, t: SandboxTemplate, body: Json) =>
  Effect.gen(function*() {
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
  })
