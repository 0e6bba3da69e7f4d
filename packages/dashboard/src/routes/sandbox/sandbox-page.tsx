import { type FormEvent, useEffect, useState } from "react"
import { get, post } from "../../api/client"
import { isSandbox } from "../../api/sandbox"
import type { DashboardChannel, SandboxInbound, SandboxInboundAccepted } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import { LiveEventList, StreamStatus } from "../../components/live-events"
import { Empty, Loading } from "../../components/states"
import { Link } from "../../router"
import { useEventStream } from "../../use-event-stream"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"
import { nameOf } from "../channels/channels-page"

/** The inject form: a text message from a number on one of the account's channels. */
const InjectForm = ({ channels }: { channels: ReadonlyArray<DashboardChannel> }) => {
  const { busy, error, run } = useSubmit()
  const [accepted, setAccepted] = useState<SandboxInboundAccepted>()
  const [channelId, setChannelId] = useState(String(channels[0]!.channel_id))
  const chat = channels.find((c) => String(c.channel_id) === channelId)?.type === "chat"
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const text = (name: string) => String(form.get(name) ?? "")
    const body: SandboxInbound = {
      channel_id: Number(channelId),
      from: text("from"),
      text: text("text"),
      ...(text("profile_name") !== "" ? { profile_name: text("profile_name") } : {}),
      ...(chat && form.get("echo") === "on" ? { echo: true } : {})
    }
    await run(async () => setAccepted(await post<SandboxInboundAccepted>("/platform/dashboard/sandbox/inbound", body)))
  }
  return (
    <form className="card" aria-labelledby="inject" onSubmit={(e) => void submit(e)}>
      <h2 id="inject">Inject an inbound message</h2>
      <div className="row">
        <SelectField label="Channel" name="channel_id" value={channelId} onChange={(e) => setChannelId(e.target.value)}>
          {channels.map((c) => <option key={c.channel_id} value={c.channel_id}>{`${c.channel_id}: ${nameOf(c)} (${c.type === "chat" ? "WhatsApp" : "Instagram"})`}</option>)}
        </SelectField>
        <Field label="From (the user's number or id)" name="from" required defaultValue="15550001234" error={error} />
        <Field label="Profile name (optional)" name="profile_name" error={error} />
      </div>
      <Field label="Text" name="text" required defaultValue="Hello from the sandbox" error={error} />
      {chat ? (
        <label className="check"><input type="checkbox" name="echo" /> The owner's own message, written in the chat app (arrives as message.echo)</label>
      ) : null}
      <ErrorBox error={error} />
      <p><button type="submit" className="primary" disabled={busy}>Send inbound message</button></p>
      {accepted !== undefined ? (
        <p role="status" data-testid="inject-result">
          Accepted as <code className="wrap">{accepted.message_id}</code>.
          {accepted.inbound_enabled ? " Watch it arrive below." : " The channel's inbound is switched off, so the platform dropped it (no event)."}
        </p>
      ) : null}
    </form>
  )
}

/** The account's live events under the form (the stream is opened only in sandbox mode). */
const ArrivingEvents = () => {
  const stream = useEventStream({ eventTypes: [], paused: false })
  return (
    <section aria-labelledby="arriving">
      <h2 id="arriving">Arriving events</h2>
      <div className="toolbar"><StreamStatus state={stream.state} /></div>
      <ErrorBox error={stream.error} />
      {stream.events.length === 0 ? <Empty>Events appear here as they are written.</Empty> : <LiveEventList events={stream.events} label="Arriving events" />}
    </section>
  )
}

/** Sandbox: inject an inbound message as the upstream would post it, and watch its events arrive live. */
export const SandboxPage = () => {
  const [sandbox, setSandbox] = useState<boolean>()
  useEffect(() => void isSandbox().then(setSandbox), [])
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const connected = channels.data?.filter((c) => c.status !== "disconnected") ?? []
  return (
    <>
      <h1>Sandbox</h1>
      {sandbox === undefined ? <Loading what="the server's mode" /> : null}
      {sandbox === false ? (
        <Empty>This server talks to Meta, not the sandbox upstream: inbound messages come from real users, so there is nothing to inject.</Empty>
      ) : null}
      {sandbox === true ? (
        <>
          <p className="notice">Sandbox mode: the simulator posts the message to the platform signed as Meta would, through the real inbound pipeline.</p>
          <ErrorBox error={channels.error} />
          {channels.loading && channels.data === undefined ? <Loading what="channels" /> : null}
          {channels.data !== undefined && connected.length === 0
            ? <Empty>No channel connected yet. <Link to="/channels">Connect one</Link> first.</Empty>
            : null}
          {connected.length > 0 ? <InjectForm channels={connected} /> : null}
          <ArrivingEvents />
        </>
      ) : null}
    </>
  )
}
