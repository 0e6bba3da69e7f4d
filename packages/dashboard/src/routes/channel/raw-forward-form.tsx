import { type FormEvent, useState } from "react"
import { patch } from "../../api/client"
import type { ChannelWebhook, ChannelWebhookUpdate, DashboardChannel } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { SecretOnce } from "../../components/secret-once"
import { useSubmit } from "../../use-submit"

/** Raw forward: the URL the upstream's payloads are re-signed to; a new secret is shown once. */
export const RawForwardForm = ({ channel, onChanged }: { channel: DashboardChannel; onChanged: () => void }) => {
  const { busy, error, run } = useSubmit()
  const [secret, setSecret] = useState<string>()
  const send = (body: ChannelWebhookUpdate) => run(async () => {
    const answer = await patch<ChannelWebhook>(`/platform/dashboard/channels/${channel.channel_id}/webhook`, body)
    setSecret(answer.webhook_secret)
    onChanged()
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void send({ webhook_url: String(new FormData(event.currentTarget).get("webhook_url")).trim() })
  }
  return (
    <section className="card" aria-labelledby="raw-forward">
      <h2 id="raw-forward">Raw forward</h2>
      <p className="muted">The upstream's payloads, re-signed with this channel's own secret, posted to one URL.{" "}
        {channel.webhook_url ? <>Now: <code>{channel.webhook_url}</code>{channel.has_webhook_secret ? " (secret set)" : ""}.</> : "Off."}</p>
      {secret !== undefined ? <SecretOnce title="Raw-forward secret" secret={secret} onDone={() => setSecret(undefined)} /> : null}
      <form onSubmit={submit}>
        <Field label="Raw-forward URL" name="webhook_url" type="url" required defaultValue={channel.webhook_url ?? ""} key={channel.webhook_url} error={error} />
        <ErrorBox error={error} />
        <div className="toolbar">
          <button type="submit" className="primary" disabled={busy}>Save URL</button>
          {channel.webhook_url ? (
            <>
              <ConfirmButton label="New secret" className="" title="Make a new raw-forward secret?" confirmLabel="Make new secret" action={() => send({ regenerate_secret: true })}>
                The current secret stops signing at once; your receiver needs the new one.
              </ConfirmButton>
              <ConfirmButton label="Turn raw forward off" title="Turn raw forward off?" confirmLabel="Turn off" action={() => send({ webhook_url: null })}>
                Payloads stop being forwarded and the secret is forgotten.
              </ConfirmButton>
            </>
          ) : null}
        </div>
      </form>
    </section>
  )
}
