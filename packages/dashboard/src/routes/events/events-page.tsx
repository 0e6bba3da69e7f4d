import { type FormEvent, useState } from "react"
import { STREAM_EVENT_TYPES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { LiveEventList, StreamStatus } from "../../components/live-events"
import { Empty } from "../../components/states"
import { type Location, navigate, queryWith } from "../../router"
import { KEEP, useEventStream } from "../../use-event-stream"

/** `?event_types=a,b`: only the known stream types are kept (the API refuses the others with 422). */
const typesOf = (query: URLSearchParams) =>
  (query.get("event_types") ?? "").split(",").filter((t): t is typeof STREAM_EVENT_TYPES[number] => (STREAM_EVENT_TYPES as ReadonlyArray<string>).includes(t))

/** Live events: the account's event stream as it happens, filtered by type (in the URL), paused on request. */
export const EventsPage = ({ location }: { location: Location }) => {
  const types = typesOf(location.query)
  const [paused, setPaused] = useState(false)
  const stream = useEventStream({ eventTypes: types, paused })
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const chosen = new FormData(event.currentTarget).getAll("event_types").map(String)
    navigate(`/events${queryWith(location.query, { event_types: chosen.join(",") })}`, { replace: true })
  }
  return (
    <>
      <h1>Live events</h1>
      <p className="muted">
        The account's events as they are written, newest first (the last {KEEP} are kept here). A dropped connection
        resumes after the last event received.
      </p>
      <form className="filters" aria-label="Event type filter" onSubmit={apply} key={types.join(",")}>
        <fieldset className="event-types">
          <legend>Event types (none ticked: all)</legend>
          <div className="checks">
            {STREAM_EVENT_TYPES.map((t) => (
              <label key={t}><input type="checkbox" name="event_types" value={t} defaultChecked={types.includes(t)} /> {t}</label>
            ))}
          </div>
        </fieldset>
        <button type="submit">Apply filter</button>
      </form>
      <div className="toolbar">
        <StreamStatus state={stream.state} />
        <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? `Resume${stream.held > 0 ? ` (${stream.held} new)` : ""}` : "Pause"}
        </button>
        <button type="button" onClick={stream.clear} disabled={stream.events.length === 0}>Clear</button>
        {stream.state === "closed" ? <button type="button" onClick={stream.reconnect}>Reconnect</button> : null}
      </div>
      <ErrorBox error={stream.error} />
      {stream.notice !== undefined ? <div className="card notice" role="status">{stream.notice}</div> : null}
      {stream.events.length === 0
        ? <Empty>{stream.state === "closed" ? "Not connected: no events arrive until the stream reconnects." : paused ? "Paused: new events are held until you resume." : `Waiting for ${types.length > 0 ? types.join(", ") : "events"}…`}</Empty>
        : <LiveEventList events={stream.events} label="Live events" />}
    </>
  )
}
