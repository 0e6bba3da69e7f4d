import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Contacts } from "./contacts.js"

/** The console's read of the contacts: the v1 reads' own calls, for the session's account. */
export const DashboardContactsLive = HttpApiBuilder.group(PlatformApi, "dashboardContacts", (handlers) =>
  Effect.gen(function*() {
    const contacts = yield* Contacts
    const account = Effect.map(CurrentSession, (s) => s.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => contacts.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => contacts.get(a, path.contact_id)))
  }))
