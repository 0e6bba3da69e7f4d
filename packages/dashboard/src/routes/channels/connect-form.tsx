import { type FormEvent, useEffect, useState } from "react"
import { post } from "../../api/client"
import { isSandbox } from "../../api/sandbox"
import type { DashboardChannel } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { useSubmit } from "../../use-submit"

/** Fresh upstream ids for a sandbox number (the simulator accepts any), as the CLI makes them. */
const sandboxIds = () => {
  const phone = String(100000000000000 + Math.floor(Math.random() * 1e12))
  return { code: "sandbox-code", phone_number_id: phone, waba_id: `WABA${phone}` }
}

/**
 * Connect a chat (embedded signup result) or social (OAuth code) channel. Against the
 * sandbox upstream every field is pre-filled, so one click connects a test number.
 */
export const ConnectForm = ({ onConnected }: { onConnected: (channel: DashboardChannel) => void }) => {
  const [kind, setKind] = useState<"chat" | "social">("chat")
  const [sandbox, setSandbox] = useState(false)
  const [ids, setIds] = useState(sandboxIds)
  const { busy, error, run } = useSubmit()
  useEffect(() => void isSandbox().then(setSandbox), [])
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>
    const body = kind === "chat"
      ? { code: form.code, phone_number_id: form.phone_number_id, waba_id: form.waba_id, ...(form.pin ? { pin: form.pin } : {}) }
      : { code: form.code, redirect_uri: form.redirect_uri }
    await run(async () => {
      onConnected(await post<DashboardChannel>(`/platform/dashboard/channels/connect/${kind}`, body))
      setIds(sandboxIds())
    })
  }
  const filled = (value: string) => (sandbox ? { defaultValue: value } : {})
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="connect" key={`${kind}-${sandbox}-${ids.phone_number_id}`}>
      <h2 id="connect">Connect a channel</h2>
      {sandbox ? <p className="notice">Sandbox mode: the fields are filled with a new test number. Press Connect.</p> : null}
      <fieldset>
        <legend>Kind</legend>
        <label><input type="radio" name="kind" checked={kind === "chat"} onChange={() => setKind("chat")} /> Chat (WhatsApp)</label>
        <label><input type="radio" name="kind" checked={kind === "social"} onChange={() => setKind("social")} /> Social (Instagram)</label>
      </fieldset>
      {kind === "chat" ? (
        <div className="row">
          <Field label="Embedded-signup code" name="code" required error={error} {...filled(ids.code)} />
          <Field label="Phone number id" name="phone_number_id" required error={error} {...filled(ids.phone_number_id)} />
          <Field label="WhatsApp Business Account id" name="waba_id" required error={error} {...filled(ids.waba_id)} />
          <Field label="PIN (6 digits, optional)" name="pin" inputMode="numeric" pattern="\d{6}" error={error} />
        </div>
      ) : (
        <div className="row">
          <Field label="OAuth code" name="code" required error={error} {...filled("sandbox-code")} />
          <Field label="Redirect URI of the OAuth dialog" name="redirect_uri" required error={error} {...filled("https://localhost/oauth/callback")} />
        </div>
      )}
      <ErrorBox error={error} />
      <button type="submit" className="primary" disabled={busy}>Connect</button>
    </form>
  )
}
