import { type FormEvent, useState } from "react"
import { createBroadcast } from "../../api/broadcasts"
import { get } from "../../api/client"
import { bodyComponents, bodyVariables } from "../../api/template-variables"
import type { BroadcastCreate, DashboardChannel, Template } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import { Empty, Loading } from "../../components/states"
import { Link, navigate } from "../../router"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"
import { TemplatePicker } from "./template-picker"

/** A new draft: name, a WhatsApp channel, one of its approved templates and the default variables. */
export const NewBroadcastPage = () => {
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const chat = channels.data?.filter((c) => c.type === "chat" && c.status !== "disconnected") ?? []
  const [channelId, setChannelId] = useState<number>()
  const [template, setTemplate] = useState<Template>()
  const channel = channelId ?? chat[0]?.channel_id
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    if (channel === undefined || template === undefined) return
    const variables = bodyVariables(template)
    const values = variables.names.map((n) => String(form.get(`var:${n}`) ?? "").trim())
    // Defaults are all or nothing: a partial set would be refused for every recipient without its own.
    const components = values.every((v) => v === "") ? undefined : bodyComponents(variables, values)
    const body: BroadcastCreate = {
      name: String(form.get("name") ?? "").trim(),
      channel_id: channel,
      template_name: template.name,
      language_code: template.language_code,
      ...(components === undefined ? {} : { components })
    }
    await run(async () => {
      const created = await createBroadcast(body)
      navigate(`/broadcasts/${created.id}`)
    })
  }
  return (
    <>
      <p><Link to="/broadcasts">« All broadcasts</Link></p>
      <h1>New broadcast</h1>
      <ErrorBox error={channels.error} />
      {channels.loading && channels.data === undefined ? <Loading what="channels" /> : null}
      {channels.data !== undefined && chat.length === 0
        ? <Empty>Broadcasts run on WhatsApp channels. <Link to="/channels">Connect one</Link> first.</Empty>
        : null}
      {chat.length > 0 ? (
        <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="new-broadcast">
          <h2 id="new-broadcast">Draft</h2>
          <Field label="Name" name="name" required maxLength={200} error={error} />
          <SelectField label="Channel" name="channel_id" value={String(channel)}
            onChange={(e) => { setChannelId(Number(e.target.value)); setTemplate(undefined) }}>
            {chat.map((c) => <option key={c.channel_id} value={c.channel_id}>{c.channel_id} {c.name ?? c.display_phone_number ?? ""}</option>)}
          </SelectField>
          <TemplatePicker channelId={channel} chosen={template} onChoose={setTemplate} error={error} />
          <p className="muted">Templates are approved by Meta per language; only approved ones are listed.</p>
          <ErrorBox error={error} />
          <button type="submit" className="primary" disabled={busy || template === undefined}>Create draft</button>
        </form>
      ) : null}
    </>
  )
}
