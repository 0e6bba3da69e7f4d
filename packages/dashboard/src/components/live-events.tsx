import type { Envelope } from "../api/types"
import { Link } from "../router"
import type { LiveEvent, StreamState } from "../use-event-stream"
import { Time } from "./time-ago"

const STATE_TEXT: Record<StreamState, { text: string; tone: string }> = {
  connecting: { text: "Connecting…", tone: "wait" },
  open: { text: "Connected", tone: "on" },
  reconnecting: { text: "Reconnecting…", tone: "wait" },
  closed: { text: "Disconnected", tone: "off" }
}

/** The stream's connection state, announced when it changes. */
export const StreamStatus = ({ state }: { state: StreamState }) => (
  <span role="status" aria-live="polite" data-testid="stream-state">
    Stream: <span className={`badge ${STATE_TEXT[state].tone}`}>{STATE_TEXT[state].text}</span>
  </span>
)

const clip = (text: string, max = 80) => text.length > max ? `${text.slice(0, max - 1)}…` : text

/** One line about an event: who, what, and the text for messages. */
export const summaryOf = (envelope: Envelope): string => {
  const d = envelope.data as Record<string, unknown>
  const str = (key: string) => typeof d[key] === "string" ? d[key] : ""
  if (envelope.event.startsWith("message.")) {
    const peer = str("peer_id")
    const what = `${str("type") || "message"} ${d.direction === "outbound" ? "to" : "from"} ${peer}`
    const text = str("text")
    return text !== "" ? `${what}: “${clip(text)}”` : `${what}${str("status") !== "" ? ` (${str("status")})` : ""}`
  }
  if (envelope.event.startsWith("conversation.")) {
    return `conversation ${String(d.conversation_id)} with ${str("peer_id")}: ${str("status")}, ${String(d.message_count)} message(s)`
  }
  if (envelope.event.startsWith("channel.")) return `${d.channel_type === "chat" ? "WhatsApp" : "Instagram"} channel …${str("meta_identifier_suffix")}`
  if (envelope.event === "template.status_changed") {
    return `template ${str("name")} (${str("language_code")}): ${str("previous_status")} → ${str("status")}`
  }
  return ""
}

/** The events as they arrived, newest first: type, time, channel, a summary and the envelope on request. */
export const LiveEventList = ({ events, label }: { events: ReadonlyArray<LiveEvent>; label: string }) => (
  <ol className="events" role="log" aria-label={label}>
    {events.map((e) => (
      <li key={e.id} className="event">
        <div className="event-head">
          <span className="badge">{e.type}</span>
          <Time iso={e.envelope.occurred_at} />
          {e.envelope.platform_channel_id !== null
            ? <Link to={`/channels/${e.envelope.platform_channel_id}`}>Channel {e.envelope.platform_channel_id}</Link>
            : <span className="muted">no channel</span>}
        </div>
        <p className="event-summary">{summaryOf(e.envelope)}</p>
        <details>
          <summary>Envelope <code className="wrap">{e.id}</code></summary>
          <pre className="code">{JSON.stringify(e.envelope, null, 2)}</pre>
        </details>
      </li>
    ))}
  </ol>
)
