import initial from "./0001_initial.js"
import delivery from "./0003_delivery.js"
import parkedStatuses from "./0004_parked_statuses.js"
import deliveryWritePath from "./0005_delivery_write_path.js"
import cascadeByStatement from "./0006_cascade_by_statement.js"
import eventOutbox from "./0007_event_outbox.js"
import attemptCounts from "./0008_attempt_counts.js"
import deliveryIndexes from "./0009_delivery_indexes.js"
import envelopeByEvent from "./0010_envelope_by_event.js"
import envelopeText from "./0011_envelope_text.js"
import deliveryFillfactor from "./0012_delivery_fillfactor.js"
import deliveryLastError from "./0013_delivery_last_error.js"
import deliveryFilterIndexes from "./0014_delivery_filter_indexes.js"
import dataPlane from "./0015_data_plane.js"
import broadcastSendCycle from "./0016_broadcast_send_cycle.js"
import contactWipeProgress from "./0018_contact_wipe_progress.js"
import broadcastRecipientKeys from "./0019_broadcast_recipient_keys.js"
import contactWipeRecipients from "./0020_contact_wipe_recipients.js"
import templateEditLease from "./0021_template_edit_lease.js"
import sessionExpiryIndex from "./0022_session_expiry_index.js"
import templateSubmittingIndex from "./0023_template_submitting_index.js"
import traceContext from "./0024_trace_context.js"
import deliveryHolders from "./0025_delivery_holders.js"
import textPayloadName from "./0026_text_payload_name.js"
import templatesSyncedAt from "./0027_templates_synced_at.js"

/** Migrations imported statically (not read from disk) so the bundled server carries them. */
export const migrations = {
  "0001_initial": initial,
  "0003_delivery": delivery,
  "0004_parked_statuses": parkedStatuses,
  "0005_delivery_write_path": deliveryWritePath,
  "0006_cascade_by_statement": cascadeByStatement,
  "0007_event_outbox": eventOutbox,
  "0008_attempt_counts": attemptCounts,
  "0009_delivery_indexes": deliveryIndexes,
  "0010_envelope_by_event": envelopeByEvent,
  "0011_envelope_text": envelopeText,
  "0012_delivery_fillfactor": deliveryFillfactor,
  "0013_delivery_last_error": deliveryLastError,
  "0014_delivery_filter_indexes": deliveryFilterIndexes,
  "0015_data_plane": dataPlane,
  "0016_broadcast_send_cycle": broadcastSendCycle,
  "0018_contact_wipe_progress": contactWipeProgress,
  "0019_broadcast_recipient_keys": broadcastRecipientKeys,
  "0020_contact_wipe_recipients": contactWipeRecipients,
  "0021_template_edit_lease": templateEditLease,
  "0022_session_expiry_index": sessionExpiryIndex,
  "0023_template_submitting_index": templateSubmittingIndex,
  "0024_trace_context": traceContext,
  "0025_delivery_holders": deliveryHolders,
  "0026_text_payload_name": textPayloadName,
  "0027_templates_synced_at": templatesSyncedAt
}
