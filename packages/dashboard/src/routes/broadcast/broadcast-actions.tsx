import { type FormEvent, useState } from "react"
import { cancelBroadcast, scheduleBroadcast, sendBroadcast } from "../../api/broadcasts"
import type { Broadcast } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { useSubmit } from "../../use-submit"

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone

/** `YYYY-MM-DDTHH:mm` in the browser's zone, as a datetime-local input holds it. */
const localInput = (date: Date) => {
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/**
 * What can be done with the broadcast in its state (SPEC §3.3): schedule a draft, send a
 * draft or a scheduled one now, cancel a scheduled or sending one back to draft (confirmed).
 */
export const BroadcastActions = ({ broadcast, onChanged }: { broadcast: Broadcast; onChanged: () => void }) => {
  const { busy, error, run } = useSubmit()
  const [defaultAt] = useState(() => localInput(new Date(Date.now() + 60 * 60 * 1000)))
  const canSend = broadcast.status === "draft" || broadcast.status === "scheduled"
  const canCancel = broadcast.status === "scheduled" || broadcast.status === "sending"
  const schedule = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const value = String(new FormData(event.currentTarget).get("scheduled_at") ?? "")
    // A datetime-local value has no zone: the browser reads it in its own, and the API gets UTC.
    await run(async () => { await scheduleBroadcast(broadcast.id, new Date(value).toISOString()); onChanged() })
  }
  const act = (call: (id: number) => Promise<Broadcast>) => () => run(async () => { await call(broadcast.id); onChanged() })
  return (
    <section className="card" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Send</h2>
      {broadcast.status === "draft" ? (
        <form onSubmit={(e) => void schedule(e)} className="inline-form" aria-label="Schedule the broadcast">
          <Field label="Send at" name="scheduled_at" type="datetime-local" required defaultValue={defaultAt}
            hint={`In your browser's time zone (${ZONE}).`} error={error} />
          <button type="submit" disabled={busy}>Schedule</button>
        </form>
      ) : null}
      <div className="toolbar">
        {canSend ? (
          <ConfirmButton label="Send now" className="primary" title={`Send "${broadcast.name}" now?`} confirmLabel="Send"
            action={act(sendBroadcast)}>
            The template {broadcast.template_name} goes to {broadcast.recipient_count} recipients, starting within 30 seconds.
          </ConfirmButton>
        ) : null}
        {canCancel ? (
          <ConfirmButton label="Cancel broadcast" title={`Cancel "${broadcast.name}"?`} confirmLabel="Back to draft"
            action={act(cancelBroadcast)}>
            It goes back to draft. Recipients already sent keep their state; the others are not sent.
          </ConfirmButton>
        ) : null}
        {!canSend && !canCancel ? <p className="muted">A {broadcast.status} broadcast takes no more actions.</p> : null}
      </div>
      <ErrorBox error={error} />
    </section>
  )
}
