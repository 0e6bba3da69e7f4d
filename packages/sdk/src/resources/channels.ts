import type { RequestOptions } from "../core/request.js"
import { APIResource } from "../resource.js"
import type { Channel } from "../types.js"

/** The account's connected channels (`/platform/v1/channels`). */
export class Channels extends APIResource {
  /** Lists the account's channels, newest first (a plain array; needs the read:channels scope). */
  list(options?: RequestOptions): Promise<ReadonlyArray<Channel>> {
    return this._client.request({ method: "GET", path: "/platform/v1/channels" }, options)
  }
}
