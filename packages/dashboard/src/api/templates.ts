import { del, get, patch, post, postForm } from "./client"
import type { HeaderMediaResult, Template, TemplateCreate, TemplatePatch, TemplateSyncResult } from "./types"

/** The typed calls of `/platform/v1/templates/*` (SPEC §4.2), which take the session cookie (§5.4). */
const BASE = "/platform/v1/templates"

/** The list filters of GET /templates the console offers, as they go in the query string. */
export const TEMPLATE_FILTERS = ["channel_id", "status", "category", "name", "language_code"] as const
export type TemplateFilters = Partial<Record<typeof TEMPLATE_FILTERS[number], string>>

export const listTemplates = (filters: TemplateFilters) => get<ReadonlyArray<Template>>(BASE, filters)
export const getTemplate = (id: string | number) => get<Template>(`${BASE}/${id}`)
export const createTemplate = (body: TemplateCreate) => post<Template>(BASE, body)
export const patchTemplate = (id: number, body: TemplatePatch) => patch<Template>(`${BASE}/${id}`, body)
export const deleteTemplate = (id: number) => del(`${BASE}/${id}`)
export const syncTemplates = (channelId: number) => post<TemplateSyncResult>(`${BASE}/sync`, { channel_id: channelId })

/** A header sample uploaded for `example.header_handle`: `channel_id` first, then the file. */
export const uploadHeaderMedia = (channelId: number, file: File) => {
  const form = new FormData()
  form.append("channel_id", String(channelId))
  form.append("file", file, file.name)
  return postForm<HeaderMediaResult>(`${BASE}/header-media`, form)
}

/** The upstream status, lower case (the API keeps the upstream's snapshot as it came). */
export const statusOf = (t: Template) => t.meta_status?.toLowerCase() ?? null
