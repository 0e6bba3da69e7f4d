import { CursorPage, type PageBody, type PageLoader, type PagePromise } from "../core/pagination.js"
import type { RequestOptions } from "../core/request.js"
import { APIResource, cursorPage, knownParams, listPages, seg } from "../resource.js"
import type {
  Broadcast,
  BroadcastCreateParams,
  BroadcastListParams,
  BroadcastRecipient,
  BroadcastRecipientCounts,
  BroadcastRecipientListParams,
  BroadcastRecipientsParams,
  BroadcastRecipientsResult,
  BroadcastScheduleParams
} from "../types.js"

const base = "/platform/v1/broadcasts"
const LIST_PARAMS = ["limit", "after", "before", "channel_id", "status"] as const satisfies ReadonlyArray<keyof BroadcastListParams>
const RECIPIENT_PARAMS = ["limit", "after", "before", "status"] as const satisfies ReadonlyArray<keyof BroadcastRecipientListParams>

/** A page of a broadcast's recipients, with the counts per state of the whole broadcast. */
export class BroadcastRecipientPage extends CursorPage<BroadcastRecipient> {
  /** Recipients per state (pending, sent, delivered, read, responded, failed) over the whole broadcast. */
  readonly counts: BroadcastRecipientCounts
  constructor(
    body: PageBody<BroadcastRecipient> & { readonly counts: BroadcastRecipientCounts },
    load: PageLoader<BroadcastRecipient, CursorPage<BroadcastRecipient>>
  ) {
    super(body, load)
    this.counts = body.counts
  }
}

/** Template broadcasts on chat channels (`/platform/v1/broadcasts`); not on the free plan. */
export class Broadcasts extends APIResource {
  /** Creates a draft; always carries an Idempotency-Key (generated unless given), so a retry never makes two. */
  create(body: BroadcastCreateParams, options?: RequestOptions): Promise<Broadcast> {
    return this._client.request({ method: "POST", path: base, body, autoIdempotencyKey: true }, options)
  }

  /** Lists broadcasts, newest first: `await` for one page, `for await` for all. */
  list(params: BroadcastListParams = {}, options?: RequestOptions): PagePromise<Broadcast, CursorPage<Broadcast>> {
    return listPages(this._client, base, knownParams("broadcasts.list", params, LIST_PARAMS), options, cursorPage)
  }

  /** Retrieves a broadcast by id. */
  retrieve(id: number, options?: RequestOptions): Promise<Broadcast> {
    return this._client.request({ method: "GET", path: `${base}/${seg(id)}` }, options)
  }

  /** Loads 1 to 1000 recipients into a draft or scheduled broadcast; duplicates of `to` are skipped (safe to retry). */
  addRecipients(id: number, body: BroadcastRecipientsParams, options?: RequestOptions): Promise<BroadcastRecipientsResult> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/recipients`, body, idempotent: true }, options)
  }

  /** Lists a broadcast's recipients with their state, newest first; each page carries `counts` per state. */
  listRecipients(
    id: number,
    params: BroadcastRecipientListParams = {},
    options?: RequestOptions
  ): PagePromise<BroadcastRecipient, BroadcastRecipientPage> {
    return listPages(
      this._client,
      `${base}/${seg(id)}/recipients`,
      knownParams("broadcasts.listRecipients", params, RECIPIENT_PARAMS),
      options,
      (body: PageBody<BroadcastRecipient> & { counts: BroadcastRecipientCounts }, load) => new BroadcastRecipientPage(body, load)
    )
  }

  /** Schedules a draft for `scheduled_at` (in the future; 60 s of clock skew tolerated). */
  schedule(id: number, body: BroadcastScheduleParams, options?: RequestOptions): Promise<Broadcast> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/schedule`, body }, options)
  }

  /** Starts sending a draft or scheduled broadcast now (status sending); carries an Idempotency-Key like `create`. */
  send(id: number, options?: RequestOptions): Promise<Broadcast> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/send`, autoIdempotencyKey: true }, options)
  }

  /** Cancels a scheduled or sending broadcast back to draft; recipients already sent keep their state. */
  cancel(id: number, options?: RequestOptions): Promise<Broadcast> {
    return this._client.request({ method: "POST", path: `${base}/${seg(id)}/cancel` }, options)
  }
}
