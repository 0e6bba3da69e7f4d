import type { Broadcast, BroadcastRecipientsPage } from "../../api/types"
import { RECIPIENT_STATUSES } from "../../api/vocabulary"
import { isLive } from "../broadcasts/broadcast-status"

type Counts = BroadcastRecipientsPage["counts"]

const COLOURS: Readonly<Record<keyof Counts, string>> = {
  pending: "#d0d5dd", sent: "#84adff", delivered: "#1f5fd1", read: "#6941c6", responded: "#1a7f37", failed: "#b42318"
}

/** What the state line says: where the send is, in words a screen reader announces when it changes. */
const summary = (broadcast: Broadcast, counts: Counts, total: number) => {
  const done = total - counts.pending
  switch (broadcast.status) {
    case "sending": return `Sending: ${done} of ${total} recipients handled`
    case "scheduled": return `Scheduled: ${total} recipients waiting`
    case "completed": return `Completed: ${total - counts.failed} of ${total} recipients reached, ${counts.failed} failed`
    case "failed": return `Failed: no recipient could be sent (${counts.failed} failed)`
    default: return `Draft: ${total} recipients${done > 0 ? `, ${done} already sent before a cancel` : ""}`
  }
}

/** Counts per recipient state and a bar of them; refreshed by the page while the broadcast is live. */
export const Progress = ({ broadcast, counts }: { broadcast: Broadcast; counts: Counts }) => {
  const total = RECIPIENT_STATUSES.reduce((n, s) => n + counts[s], 0)
  return (
    <section className="card" aria-labelledby="progress-heading">
      <h2 id="progress-heading">Progress</h2>
      <p aria-live="polite" data-testid="progress-summary">
        {summary(broadcast, counts, total)}{isLive(broadcast.status) ? <span className="muted"> (updating every 2 seconds)</span> : null}
      </p>
      <div className="stack-bar" aria-hidden="true">
        {total > 0 ? RECIPIENT_STATUSES.filter((s) => counts[s] > 0).map((s) => (
          <span key={s} style={{ width: `${(counts[s] / total) * 100}%`, background: COLOURS[s] }} title={`${s}: ${counts[s]}`} />
        )) : null}
      </div>
      <dl className="counts">
        {RECIPIENT_STATUSES.map((s) => (
          <div key={s}>
            <dt><span className="swatch" style={{ background: COLOURS[s] }} aria-hidden="true" /> {s}</dt>
            <dd data-testid={`count-${s}`}>{counts[s]}</dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
