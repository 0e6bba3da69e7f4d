import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { noQueryParams, queryParams } from "../common.js"
import { Contact, ContactDeleted, ContactList, ContactListQuery, ContactPatch } from "../contact.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const ContactPath = Schema.Struct({ contact_id: PathId("The contact's id") })

const base = "/platform/v1/contacts"

/** `/platform/v1/contacts` (SPEC §4.4, §5.3): reads need read:contacts, PATCH and DELETE manage:data; key only. */
export class ContactsGroup extends HttpApiGroup.make("contacts")
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(ContactListQuery))
      .addSuccess(ContactList)
      .addError(wire(ValidationFailed))
      .annotate(RequiredScope, "read:contacts")
      .annotate(OpenApi.Summary, "List contacts, newest first")
      .annotate(
        OpenApi.Description,
        "Filters `channel_id` and `q` (case-insensitive prefix of the display name, profile name, username or phone)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:contact_id`)
      .setUrlParams(noQueryParams)
      .setPath(ContactPath)
      .addSuccess(Contact)
      .addError(wire(NotFound))
      .annotate(RequiredScope, "read:contacts")
      .annotate(OpenApi.Summary, "Get a contact")
  )
  .add(
    HttpApiEndpoint.patch("update", `${base}/:contact_id`)
      .setUrlParams(noQueryParams)
      .setPath(ContactPath)
      .setPayload(ContactPatch)
      .addSuccess(Contact)
      .addError(wire(NotFound))
      .annotate(RequiredScope, "manage:data")
      .annotate(OpenApi.Summary, "Set a contact's display name or metadata")
      .annotate(
        OpenApi.Description,
        "`contact_metadata` is merged key by key into the stored object (a key set to null is removed); " +
          "`display_name` (up to 255 characters) replaces the old one."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${base}/:contact_id`)
      .setUrlParams(noQueryParams)
      .setPath(ContactPath)
      .addSuccess(ContactDeleted, { status: 202 })
      .addError(wire(NotFound))
      .annotate(RequiredScope, "manage:data")
      .annotate(OpenApi.Summary, "Delete a contact with its messages and conversations")
      .annotate(
        OpenApi.Description,
        "202: the contact, its messages and its conversations disappear from every read at once and are wiped by a " +
          "background job in bounded batches. Events already written keep their payloads."
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "read:contacts")
  .annotate(CookieAllowed, false)
  .annotate(OpenApi.Title, "Contacts")
  .annotate(OpenApi.Description, "The people who wrote to or were written to on a channel: list, get, update, delete.")
{}
