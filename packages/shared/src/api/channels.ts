import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Channel } from "../channel.js"
import { ApiKeyAuth, CookieAllowed, RequiredScope } from "./security.js"

/**
 * `/platform/v1/channels` (full paths on each endpoint, so endpoints added later need no prefix call): the list (read:channels, key only) and, from the channel
 * operations issue, the per-channel operations (manage:channels, key or cookie; the
 * group default).
 */
export class ChannelsGroup extends HttpApiGroup.make("channels")
  .add(
    HttpApiEndpoint.get("list", "/platform/v1/channels")
      .addSuccess(Schema.Array(Channel))
      .annotate(RequiredScope, "read:channels")
      .annotate(CookieAllowed, false)
      .annotate(OpenApi.Summary, "List the account's channels, newest first")
      .annotate(
        OpenApi.Description,
        "Plain array, `[]` when none. Never carries token material. Requires read:channels; key only."
      )
  )
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:channels")
  .annotate(CookieAllowed, true)
{}
