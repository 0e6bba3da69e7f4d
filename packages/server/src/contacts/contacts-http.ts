import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Contacts } from "./contacts.js"

export const ContactsLive = HttpApiBuilder.group(PlatformApi, "contacts", (handlers) =>
  Effect.gen(function*() {
    const contacts = yield* Contacts
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => contacts.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => contacts.get(a, path.contact_id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(account, (a) => contacts.update(a, path.contact_id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(account, (a) => contacts.remove(a, path.contact_id)))
  }))
