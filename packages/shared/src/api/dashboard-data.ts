import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams, queryParams } from "../common.js"
import { Contact, ContactList, ContactListQuery } from "../contact.js"
import { Conversation, ConversationList, ConversationListQuery } from "../conversation.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { Message, MessageList, MessageListQuery } from "../message.js"
import { ContactPath } from "./contacts.js"
import { ConversationPath } from "./conversations.js"
import { MessagePath } from "./message-history.js"
import { DashboardAuth, InputGuard } from "./security.js"

/*
 * The console's reads of the data plane (issue 40). SPEC §5.4 keeps the v1 message,
 * conversation and contact routes key-only, so the console reads through these:
 * cookie only, read-only, the same query parameters, list envelope and records as the
 * v1 lists (the same schemas; the server answers both from the same service calls).
 */

const base = "/platform/dashboard"

/** `GET /platform/dashboard/messages[/{id}]`: the stored history, as `GET /platform/v1/messages`. */
export class DashboardMessagesGroup extends HttpApiGroup.make("dashboardMessages")
  .add(
    HttpApiEndpoint.get("list", `${base}/messages`)
      .setUrlParams(queryParams(MessageListQuery))
      .addSuccess(MessageList)
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List stored messages, newest first (as GET /platform/v1/messages)")
      .annotate(
        OpenApi.Description,
        "Filters `channel_id, conversation_id, contact_id, peer_id, direction, type, status, since` (inclusive) and " +
          "`until` (exclusive); a value no message has gives an empty page. A conversation's thread is this list " +
          "with `conversation_id`. Messages of a deleted contact are not listed."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/messages/:message_id`)
      .setUrlParams(noQueryParams)
      .setPath(MessagePath)
      .addSuccess(Message)
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Get a stored message")
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: messages")
  .annotate(OpenApi.Description, "The console's read of the message history: cookie only, read-only.")
{}

/** `GET /platform/dashboard/conversations[/{id}]`, as the v1 conversation reads. */
export class DashboardConversationsGroup extends HttpApiGroup.make("dashboardConversations")
  .add(
    HttpApiEndpoint.get("list", `${base}/conversations`)
      .setUrlParams(queryParams(ConversationListQuery))
      .addSuccess(ConversationList)
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List conversations, newest first (as GET /platform/v1/conversations)")
      .annotate(
        OpenApi.Description,
        "Filters `channel_id`, `status`, `peer_id`; a value no conversation has gives an empty page. " +
          "Conversations of a deleted contact are not listed."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/conversations/:conversation_id`)
      .setUrlParams(noQueryParams)
      .setPath(ConversationPath)
      .addSuccess(Conversation)
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Get a conversation")
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: conversations")
  .annotate(OpenApi.Description, "The console's read of the conversations: cookie only, read-only.")
{}

/** `GET /platform/dashboard/contacts[/{id}]`, as the v1 contact reads. */
export class DashboardContactsGroup extends HttpApiGroup.make("dashboardContacts")
  .add(
    HttpApiEndpoint.get("list", `${base}/contacts`)
      .setUrlParams(queryParams(ContactListQuery))
      .addSuccess(ContactList)
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List contacts, newest first (as GET /platform/v1/contacts)")
      .annotate(
        OpenApi.Description,
        "Filters `channel_id` and `q` (case-insensitive prefix of the display name, profile name, username or phone)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/contacts/:contact_id`)
      .setUrlParams(noQueryParams)
      .setPath(ContactPath)
      .addSuccess(Contact)
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Get a contact")
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: contacts")
  .annotate(OpenApi.Description, "The console's read of the contacts: cookie only, read-only.")
{}
