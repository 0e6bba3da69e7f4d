import { ApiError } from "./api-error"
import { get, post, type Query } from "./client"
import type {
  Broadcast,
  BroadcastCreate,
  BroadcastRecipientsLoadResult,
  BroadcastRecipientsPage,
  Page,
  RuntimeComponent,
  Template
} from "./types"

/** The broadcast routes of SPEC §4.7 (key or cookie: the console sends its session cookie). */
const base = "/platform/v1/broadcasts"

/** The most recipients one load call takes (SPEC §8). */
export const RECIPIENTS_PER_CALL = 1000

export const listBroadcasts = (query: Query) => get<Page<Broadcast>>(base, query)
export const getBroadcast = (id: string | number) => get<Broadcast>(`${base}/${id}`)
export const createBroadcast = (body: BroadcastCreate) => post<Broadcast>(base, body)
export const listRecipients = (id: string | number, query: Query) => get<BroadcastRecipientsPage>(`${base}/${id}/recipients`, query)
export const scheduleBroadcast = (id: number, scheduledAt: string) => post<Broadcast>(`${base}/${id}/schedule`, { scheduled_at: scheduledAt })
export const sendBroadcast = (id: number) => post<Broadcast>(`${base}/${id}/send`)
export const cancelBroadcast = (id: number) => post<Broadcast>(`${base}/${id}/cancel`)

/** The approved templates of a channel, those a broadcast can send (GET /templates returns a plain array). */
export const approvedTemplates = (channelId: number) =>
  get<ReadonlyArray<Template>>("/platform/v1/templates", { channel_id: channelId, status: "approved" })

/** A recipient as the console read it (a pasted line, a CSV row), with where it came from. */
export interface RowRecipient {
  /** The line of the pasted text or the row of the file, from 1. */
  readonly row: number
  readonly to: string
  readonly components?: ReadonlyArray<RuntimeComponent>
}

/** A row the API refused, with its reason as the API gave it. */
export interface Rejected {
  readonly row: number
  readonly to: string
  readonly reason: string
}

export interface LoadOutcome {
  readonly added: number
  readonly skipped: number
  readonly recipient_count: number | undefined
  readonly rejected: ReadonlyArray<Rejected>
  /** A failure not about one row (plan limit, wrong state): what was loaded before it stays. */
  readonly error: ApiError | undefined
}

interface Issue {
  readonly loc?: ReadonlyArray<string | number>
  readonly msg?: string
}

/** The 422's issues by recipient index, or undefined when one of them is not about a single recipient. */
const rowIssues = (error: unknown): Map<number, string> | undefined => {
  if (!(error instanceof ApiError) || error.status !== 422) return undefined
  const detail = (error.body as { detail?: unknown } | null)?.detail
  if (!Array.isArray(detail) || detail.length === 0) return undefined
  const byRow = new Map<number, string>()
  for (const issue of detail as ReadonlyArray<Issue>) {
    const loc = issue.loc ?? []
    if (loc[0] !== "body" || loc[1] !== "recipients" || typeof loc[2] !== "number") return undefined
    const field = loc.slice(3).join(".")
    const reason = field === "" ? issue.msg ?? "invalid" : `${field}: ${issue.msg ?? "invalid"}`
    byRow.set(loc[2], byRow.has(loc[2]) ? `${byRow.get(loc[2])}; ${reason}` : reason)
  }
  return byRow
}

/**
 * Loads recipients 1000 a call. The API refuses a whole call for one bad recipient
 * (a 422 naming `recipients[i]`): those rows are set aside with the API's reason and
 * the call is made again without them, so the good rows load and the bad ones are shown.
 */
export const loadRecipients = async (id: number, rows: ReadonlyArray<RowRecipient>): Promise<LoadOutcome> => {
  let added = 0
  let skipped = 0
  let count: number | undefined
  const rejected: Array<Rejected> = []
  for (let start = 0; start < rows.length; start += RECIPIENTS_PER_CALL) {
    let batch = rows.slice(start, start + RECIPIENTS_PER_CALL)
    while (batch.length > 0) {
      try {
        const body = { recipients: batch.map((r) => (r.components === undefined ? { to: r.to } : { to: r.to, components: r.components })) }
        const result = await post<BroadcastRecipientsLoadResult>(`${base}/${id}/recipients`, body)
        added += result.added
        skipped += result.skipped
        count = result.recipient_count
        break
      } catch (error) {
        const issues = rowIssues(error)
        if (issues === undefined || ![...issues.keys()].some((i) => i < batch.length)) return { added, skipped, recipient_count: count, rejected, error: error as ApiError }
        const current = batch
        for (const [i, reason] of issues) if (current[i] !== undefined) rejected.push({ row: current[i].row, to: current[i].to, reason })
        batch = current.filter((_, i) => !issues.has(i))
      }
    }
  }
  return { added, skipped, recipient_count: count, rejected: rejected.sort((a, b) => a.row - b.row), error: undefined }
}
