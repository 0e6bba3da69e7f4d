import { Schema } from "effect"
import { Id, Label, Timestamp, optional, requestBody } from "./common.js"
import { BROADCAST_RECIPIENTS_PER_CALL } from "./limits.js"
import { Recipient, RuntimeComponents, TemplateRef } from "./message.js"
import { ListQueryFields, Page } from "./pagination.js"
import { IntegerParam } from "./param.js"

export const BroadcastStatus = Schema.Literal("draft", "scheduled", "sending", "completed", "failed").annotations({
  identifier: "BroadcastStatus"
})
export type BroadcastStatus = typeof BroadcastStatus.Type

/** Broadcast resource (SPEC §2.7). */
export const Broadcast = Schema.Struct({
  id: Id,
  name: Schema.String,
  platform_channel_id: Id,
  template_name: Schema.String,
  language_code: Schema.String,
  status: BroadcastStatus,
  recipient_count: Schema.Int,
  scheduled_at: optional(Schema.NullOr(Timestamp)),
  started_at: optional(Schema.NullOr(Timestamp)),
  completed_at: optional(Schema.NullOr(Timestamp)),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Broadcast" })
export type Broadcast = typeof Broadcast.Type

/** POST /broadcasts: a draft (DESIGN §5). */
export const BroadcastCreate = requestBody(
  Schema.Struct({
    name: Label(200),
    channel_id: Id,
    ...TemplateRef,
    components: optional(RuntimeComponents)
  }),
  "BroadcastCreate"
)
export type BroadcastCreate = typeof BroadcastCreate.Type

export const BroadcastRecipientInput = Schema.Struct({
  to: Recipient,
  components: optional(RuntimeComponents)
}).annotations({ message: () => "must be an object with to and optional components" })

/** POST /broadcasts/{id}/recipients: 1..1000 recipients a call, deduplicated by `to` (by its digits: broadcasts run on chat channels). */
export const BroadcastRecipientsLoad = requestBody(
  Schema.Struct({
    recipients: Schema.Array(BroadcastRecipientInput).annotations({ message: () => "must be a list of recipients" }).pipe(
      Schema.minItems(1, { message: () => `must hold 1 to ${BROADCAST_RECIPIENTS_PER_CALL} recipients` }),
      Schema.maxItems(BROADCAST_RECIPIENTS_PER_CALL, {
        message: () => `must hold 1 to ${BROADCAST_RECIPIENTS_PER_CALL} recipients`
      })
    )
  }),
  "BroadcastRecipientsLoad"
)
export type BroadcastRecipientsLoad = typeof BroadcastRecipientsLoad.Type

/** Result of a recipients load: how many were new, how many were duplicates, the new total. */
export const BroadcastRecipientsLoadResult = Schema.Struct({
  added: Schema.Int,
  skipped: Schema.Int,
  recipient_count: Schema.Int
}).annotations({ identifier: "BroadcastRecipientsLoadResult" })
export type BroadcastRecipientsLoadResult = typeof BroadcastRecipientsLoadResult.Type

/** POST /broadcasts/{id}/schedule; the server checks "in the future, 60 s skew tolerated". */
export const BroadcastSchedule = requestBody(Schema.Struct({ scheduled_at: Timestamp }), "BroadcastSchedule")
export type BroadcastSchedule = typeof BroadcastSchedule.Type

export const RecipientStatus = Schema.Literal("pending", "sent", "delivered", "read", "responded", "failed")
export type RecipientStatus = typeof RecipientStatus.Type

export const BroadcastRecipient = Schema.Struct({
  id: Id,
  to: Schema.String,
  status: RecipientStatus,
  message_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  updated_at: Timestamp
}).annotations({ identifier: "BroadcastRecipient" })
export type BroadcastRecipient = typeof BroadcastRecipient.Type

/** GET /broadcasts/{id}/recipients: a page of recipients plus counts per state. */
export const BroadcastRecipientsPage = Schema.Struct({
  ...Page(BroadcastRecipient).fields,
  counts: Schema.Struct({
    pending: Schema.Int,
    sent: Schema.Int,
    delivered: Schema.Int,
    read: Schema.Int,
    responded: Schema.Int,
    failed: Schema.Int
  })
}).annotations({ identifier: "BroadcastRecipientsPage" })
export type BroadcastRecipientsPage = typeof BroadcastRecipientsPage.Type

/** GET /broadcasts: the list query; unknown filter values give an empty page (DESIGN §5 "Filters"). */
export const BroadcastListQuery = Schema.Struct({
  ...ListQueryFields,
  channel_id: optional(IntegerParam("Only broadcasts of this channel.")),
  status: optional(Schema.String.annotations({ description: "Only broadcasts in this status (draft, scheduled, sending, completed, failed)." }))
})
export type BroadcastListQuery = typeof BroadcastListQuery.Type

/** GET /broadcasts/{id}/recipients: the list query; `status` filters by the per-recipient state. */
export const BroadcastRecipientsQuery = Schema.Struct({
  ...ListQueryFields,
  status: optional(Schema.String.annotations({
    description: "Only recipients in this state (pending, sent, delivered, read, responded, failed)."
  }))
})
export type BroadcastRecipientsQuery = typeof BroadcastRecipientsQuery.Type
