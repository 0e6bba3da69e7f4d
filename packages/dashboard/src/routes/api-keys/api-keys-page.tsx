import { useState } from "react"
import type { ApiError } from "../../api/api-error"
import { del, get, patch } from "../../api/client"
import type { ApiKey, ApiKeyCreated } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { CopyButton } from "../../components/copy-button"
import { ErrorBox } from "../../components/error-box"
import { TableRegion } from "../../components/scrollable"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { useResource } from "../../use-resource"
import { CreateKeyForm } from "./create-key-form"

const expired = (key: ApiKey) => key.expires_at !== null && new Date(key.expires_at).getTime() < Date.now()

/** The plaintext of a key just created: shown this once, with a copy button. */
const NewKey = ({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) => (
  <section className="card notice" aria-labelledby="new-key">
    <h2 id="new-key">Your new key “{created.name}”</h2>
    <p>Copy it now: it is shown only this once and cannot be read again.</p>
    <p><code className="secret" data-testid="new-key">{created.key}</code></p>
    <CopyButton text={created.key} label="Copy key" /> <button type="button" onClick={onDone}>I have copied it</button>
  </section>
)

/** API keys: list (prefix, scopes, last use, expiry, rate limit), create, deactivate, delete. */
export const ApiKeysPage = () => {
  const keys = useResource(() => get<ReadonlyArray<ApiKey>>("/platform/dashboard/api-keys"), "keys")
  const [created, setCreated] = useState<ApiKeyCreated>()
  const [actionError, setActionError] = useState<ApiError>()
  const act = (run: () => Promise<unknown>) => async () => {
    try {
      await run()
      setActionError(undefined)
    } catch (e) {
      setActionError(e as ApiError)
    }
    keys.reload()
  }
  return (
    <>
      <h1>API keys</h1>
      <p className="muted">A key authenticates your code with <code>X-API-Key</code>. Its scopes are fixed at creation.</p>
      {created ? <NewKey created={created} onDone={() => setCreated(undefined)} /> : null}
      <ErrorBox error={keys.error ?? actionError} />
      {keys.loading && keys.data === undefined ? <Loading what="API keys" /> : null}
      {keys.data?.length === 0 ? <Empty>No API keys yet. Create one below to call the API.</Empty> : null}
      {keys.data !== undefined && keys.data.length > 0 ? (
        <TableRegion label="API keys">
          <table>
            <caption className="sr-only">API keys</caption>
            <thead>
              <tr><th>Name</th><th>Prefix</th><th>Scopes</th><th>Last used</th><th>Expires</th><th>Rate limit</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td><code>{key.prefix}…</code></td>
                  <td className="scopes">{key.scopes.length === 11 ? "all 11" : key.scopes.join(", ")}</td>
                  <td><Time iso={key.last_used_at} empty="never" /></td>
                  <td><Time iso={key.expires_at} empty="never" /></td>
                  <td>{key.rate_limit_per_minute}/min</td>
                  <td>{!key.is_active ? <span className="badge off">inactive</span> : expired(key) ? <span className="badge off">expired</span> : <span className="badge on">active</span>}</td>
                  <td className="actions">
                    {key.is_active
                      ? (
                        <ConfirmButton label="Deactivate" ariaLabel={`Deactivate key ${key.name}`} title={`Deactivate “${key.name}”?`} confirmLabel="Deactivate" className="secondary"
                          action={act(() => patch(`/platform/dashboard/api-keys/${key.id}`, { is_active: false }))}>
                          Requests with this key are refused (401) until you activate it again.
                        </ConfirmButton>
                      )
                      : <button type="button" aria-label={`Activate key ${key.name}`} onClick={() => void act(() => patch(`/platform/dashboard/api-keys/${key.id}`, { is_active: true }))()}>Activate</button>}
                    <ConfirmButton label="Delete" ariaLabel={`Delete key ${key.name}`} title={`Delete “${key.name}”?`} confirmLabel="Delete key"
                      action={act(() => del(`/platform/dashboard/api-keys/${key.id}`))}>
                      This cannot be undone: every request with this key is refused from now on.
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      <CreateKeyForm onCreated={(key) => { setCreated(key); keys.reload() }} />
    </>
  )
}
