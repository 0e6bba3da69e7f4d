import { useCallback, useEffect, useRef, useState } from "react"
import { type ApiError, apiErrorOf } from "./api/api-error"
import { get, withQuery } from "./api/client"
import type { Envelope, LastEventIdNotFound } from "./api/types"
import { LAST_EVENT_ID_NOT_FOUND, STREAM_EVENT_TYPES } from "./api/vocabulary"

/** The stream's connection as the page shows it. */
export type StreamState = "connecting" | "open" | "reconnecting" | "closed"

/** One event as it arrived: its id and type (the SSE `id:` and `event:`) and its envelope. */
export interface LiveEvent {
  readonly id: string
  readonly type: string
  readonly envelope: Envelope
}

/** At most this many events are kept on the page, newest first. */
export const KEEP = 200

const STREAM = "/platform/v1/events/stream"

/**
 * Why a stream closed for good: EventSource gives no status, so the same request is made
 * once with fetch for the API's answer (401 session ended, 429 too many streams, 422 a bad
 * filter). A 200 means it was transient: the probe is cancelled and nothing is shown.
 */
const probe = async (url: string): Promise<ApiError | undefined> => {
  const controller = new AbortController()
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { accept: "text/event-stream" }, signal: controller.signal })
    if (response.ok) return undefined
    const body: unknown = await response.json().catch(() => undefined)
    // A 401 goes through the client so the console's session handling sends the visitor to log in.
    if (response.status === 401) await get("/platform/dashboard/me").catch(() => undefined)
    return apiErrorOf(response.status, body)
  } catch {
    return undefined
  } finally {
    controller.abort()
  }
}

/**
 * The account's events as they happen, from `GET /platform/v1/events/stream` with the session
 * cookie (EventSource: it reconnects by itself, sending Last-Event-ID, so nothing is missed
 * across a dropped connection). While `paused` new events are held back (`held` counts them)
 * and shown on resume.
 */
export const useEventStream = (options: { readonly eventTypes: ReadonlyArray<string>; readonly paused: boolean }) => {
  const [state, setState] = useState<StreamState>("connecting")
  const [events, setEvents] = useState<ReadonlyArray<LiveEvent>>([])
  const [held, setHeld] = useState<ReadonlyArray<LiveEvent>>([])
  const [notice, setNotice] = useState<string>()
  const [error, setError] = useState<ApiError>()
  const [nonce, setNonce] = useState(0)
  const paused = useRef(options.paused)
  paused.current = options.paused
  const key = options.eventTypes.join(",")

  useEffect(() => {
    const url = withQuery(STREAM, { event_types: key })
    const source = new EventSource(url)
    let closed = false
    setState("connecting")
    setError(undefined)
    source.onopen = () => {
      setState("open")
      setError(undefined)
    }
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) return setState("reconnecting")
      setState("closed")
      void probe(url).then((e) => !closed && setError(e))
    }
    const onEvent = (message: MessageEvent<string>) => {
      let envelope: Envelope
      try {
        envelope = JSON.parse(message.data) as Envelope
      } catch {
        return
      }
      const event: LiveEvent = { id: message.lastEventId || envelope.id, type: message.type, envelope }
      const add = (list: ReadonlyArray<LiveEvent>) => list.some((e) => e.id === event.id) ? list : [event, ...list].slice(0, KEEP)
      if (paused.current) setHeld(add)
      else setEvents(add)
    }
    for (const type of STREAM_EVENT_TYPES) source.addEventListener(type, onEvent)
    source.addEventListener(LAST_EVENT_ID_NOT_FOUND, (message: MessageEvent<string>) => {
      try {
        setNotice((JSON.parse(message.data) as LastEventIdNotFound).message)
      } catch {
        setNotice("The stream could not resume where it left off; events may have been missed.")
      }
    })
    return () => {
      closed = true
      source.close()
    }
  }, [key, nonce])

  // On resume the held events join the list, newest first.
  useEffect(() => {
    if (options.paused || held.length === 0) return
    setEvents((list) => [...held, ...list.filter((e) => !held.some((h) => h.id === e.id))].slice(0, KEEP))
    setHeld([])
  }, [options.paused, held])

  const reconnect = useCallback(() => setNonce((n) => n + 1), [])
  const clear = useCallback(() => setEvents([]), [])
  return { state, events, held: held.length, notice, error, reconnect, clear } as const
}
