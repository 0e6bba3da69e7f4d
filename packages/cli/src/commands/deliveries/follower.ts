import type { EventDelivery } from "@platform/sdk"

/** One page of the deliveries list, newest first, as `list` returns it. */
export interface DeliveriesPage {
  readonly data: ReadonlyArray<EventDelivery>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/** A delivery still in flight below the newest pages is looked up on its own at most this many times a poll... */
const FOLLOW_UPS_PER_POLL = 10
/** ...and, once looked up unchanged, not again for this long (a row of a paused subscription stays pending). */
const FOLLOW_UP_SPACING_MS = 10_000

const inFlight = (d: EventDelivery) => d.status === "pending" || d.status === "delivering"

/**
 * What `deliveries tail` has seen: each delivery's last (status, attempts) and the
 * newest id. A poll pages from the newest delivery back to the newest one of the
 * previous poll, so no new delivery is skipped however many arrived; a delivery
 * still in flight that has dropped below those pages is looked up by id once its
 * retry is due. The first poll only takes note: existing attempts are history.
 */
export class DeliveryFollower {
  #newest: number | undefined
  readonly #seen = new Map<number, string>()
  /** In-flight deliveries and when to look at each again (ms). */
  readonly #due = new Map<number, number>()
  /** The events of the deliveries the last poll saw. */
  #events: ReadonlySet<string> = new Set()

  /** When the soonest in-flight delivery is due a look (ms), or undefined when none is in flight. */
  nextDue(): number | undefined {
    let soonest: number | undefined
    for (const at of this.#due.values()) if (soonest === undefined || at < soonest) soonest = at
    return soonest
  }

  /** Whether the last poll saw a delivery of this event. */
  sawEvent(eventId: string): boolean {
    return this.#events.has(eventId)
  }

  /** The attempts made since the last poll, oldest delivery first. */
  async poll(
    list: (after: string | undefined) => Promise<DeliveriesPage>,
    retrieve: (id: number) => Promise<EventDelivery | undefined>,
    now: number
  ): Promise<ReadonlyArray<EventDelivery>> {
    const first = this.#newest === undefined
    const rows: Array<EventDelivery> = []
    for (let after: string | undefined; ;) {
      const page = await list(after)
      rows.push(...page.data)
      const oldest = page.data[page.data.length - 1]
      if (first || !page.has_more || page.next_cursor === null || oldest === undefined || oldest.id <= this.#newest!) break
      after = page.next_cursor
    }
    const walked = new Set(rows.map((d) => d.id))
    this.#events = new Set(rows.map((d) => d.event_id))
    const floor = rows.length > 0 ? rows[rows.length - 1]!.id : (this.#newest ?? 0)
    const followed = new Set<number>()
    const due = [...this.#due].filter(([id, at]) => !walked.has(id) && at <= now).sort((a, b) => a[1] - b[1])
    for (const [id] of due.slice(0, FOLLOW_UPS_PER_POLL)) {
      const d = await retrieve(id)
      followed.add(id)
      if (d === undefined) {
        this.#due.delete(id)
        this.#seen.delete(id)
      } else rows.push(d)
    }
    const fresh: Array<EventDelivery> = []
    for (const d of rows) {
      const key = `${d.status}:${d.attempts}`
      const changed = this.#seen.get(d.id) !== key
      this.#seen.set(d.id, key)
      if (!inFlight(d)) this.#due.delete(d.id)
      else {
        const retryAt = d.next_retry_at == null ? now : Date.parse(d.next_retry_at)
        this.#due.set(d.id, followed.has(d.id) && !changed ? Math.max(retryAt, now + FOLLOW_UP_SPACING_MS) : retryAt)
      }
      if (changed && !(d.status === "pending" && d.attempts === 0)) fresh.push(d)
    }
    // Below the walked pages only in-flight deliveries can show a new attempt: forget the others.
    for (const id of this.#seen.keys()) if (id < floor && !this.#due.has(id)) this.#seen.delete(id)
    this.#newest = Math.max(this.#newest ?? 0, ...walked)
    return first ? [] : fresh.sort((a, b) => a.id - b.id)
  }
}
