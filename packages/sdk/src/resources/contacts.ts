import type { CursorPage, PagePromise } from "../core/pagination.js"
import type { RequestOptions } from "../core/request.js"
import { APIResource, cursorPage, knownParams, listPages, seg } from "../resource.js"
import type { Contact, ContactDeleteResult, ContactListParams, ContactUpdateParams } from "../types.js"

const base = "/platform/v1/contacts"
const LIST_PARAMS = ["limit", "after", "before", "channel_id", "q"] as const satisfies ReadonlyArray<keyof ContactListParams>

/** Contacts (`/platform/v1/contacts`): list and retrieve (read:contacts), update and delete (manage:data). */
export class Contacts extends APIResource {
  /** Lists contacts, newest first; `q` is a case-insensitive prefix of a name, the username or the phone. */
  list(params: ContactListParams = {}, options?: RequestOptions): PagePromise<Contact, CursorPage<Contact>> {
    return listPages(this._client, base, knownParams("contacts.list", params, LIST_PARAMS), options, cursorPage)
  }

  /** Retrieves a contact by id. */
  retrieve(contactId: number, options?: RequestOptions): Promise<Contact> {
    return this._client.request({ method: "GET", path: `${base}/${seg(contactId)}` }, options)
  }

  /** Merges `contact_metadata` (a key set to null is removed) and sets `display_name`. */
  update(contactId: number, body: ContactUpdateParams, options?: RequestOptions): Promise<Contact> {
    return this._client.request({ method: "PATCH", path: `${base}/${seg(contactId)}`, body, idempotent: true }, options)
  }

  /** Deletes a contact with its messages and conversations: gone from reads at once, wiped in the background. */
  delete(contactId: number, options?: RequestOptions): Promise<ContactDeleteResult> {
    return this._client.request({ method: "DELETE", path: `${base}/${seg(contactId)}` }, options)
  }
}
