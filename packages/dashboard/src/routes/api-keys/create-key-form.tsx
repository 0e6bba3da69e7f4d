import type { FormEvent } from "react"
import { post } from "../../api/client"
import type { ApiKeyCreate, ApiKeyCreated, Scope } from "../../api/types"
import { SCOPES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { useSubmit } from "../../use-submit"

/** `datetime-local` is the browser's zone without an offset; the API wants an instant. */
const instantOf = (local: string) => (local === "" ? undefined : new Date(local).toISOString())

/** The creation form: a name, the scopes (all ticked, SPEC §5.1), an optional expiry and rate limit. */
export const CreateKeyForm = ({ onCreated }: { onCreated: (key: ApiKeyCreated) => void }) => {
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const form = new FormData(element)
    const scopes = form.getAll("scopes") as Array<Scope>
    const expires = instantOf(String(form.get("expires_at") ?? ""))
    const limit = String(form.get("rate_limit_per_minute") ?? "")
    const body: ApiKeyCreate = {
      name: String(form.get("name")),
      scopes,
      ...(expires === undefined ? {} : { expires_at: expires }),
      ...(limit === "" ? {} : { rate_limit_per_minute: Number(limit) })
    }
    await run(async () => {
      onCreated(await post<ApiKeyCreated>("/platform/dashboard/api-keys", body))
      element.reset()
    })
  }
  return (
    <form onSubmit={(e) => void submit(e)} className="card" aria-labelledby="create-key">
      <h2 id="create-key">Create an API key</h2>
      <Field label="Name" name="name" required maxLength={200} placeholder="Production server" error={error} />
      <fieldset>
        <legend>Scopes</legend>
        <div className="checks">
          {SCOPES.map((scope) => (
            <label key={scope}><input type="checkbox" name="scopes" value={scope} defaultChecked /> <code>{scope}</code></label>
          ))}
        </div>
      </fieldset>
      <div className="row">
        <Field label="Expires (optional)" name="expires_at" type="datetime-local" error={error} />
        <Field label="Rate limit (requests per minute)" name="rate_limit_per_minute" type="number" min={1} defaultValue={60} error={error} />
      </div>
      <ErrorBox error={error} />
      <button type="submit" className="primary" disabled={busy}>Create key</button>
    </form>
  )
}
