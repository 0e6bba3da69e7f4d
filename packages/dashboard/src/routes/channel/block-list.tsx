import { type FormEvent, useState } from "react"
import { request } from "../../api/client"
import type { BlockUsersResult } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { useSubmit } from "../../use-submit"

/**
 * Block and unblock numbers. The API answers per user but has no route that lists the
 * upstream's block list, so the list here is what was blocked from this page.
 */
export const BlockList = ({ channelId }: { channelId: number }) => {
  const { busy, error, run } = useSubmit()
  const [blocked, setBlocked] = useState<ReadonlyArray<string>>([])
  const [result, setResult] = useState<{ verb: string; answer: BlockUsersResult }>()
  const call = (method: "POST" | "DELETE", users: ReadonlyArray<string>) => run(async () => {
    const answer = await request<BlockUsersResult>(method, `/platform/v1/channels/${channelId}/block-users`, { users })
    const done = answer.succeeded.map((s) => s.user)
    setBlocked((now) => method === "POST" ? [...new Set([...now, ...done])] : now.filter((u) => !done.includes(u)))
    setResult({ verb: method === "POST" ? "Blocked" : "Unblocked", answer })
  })
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const users = String(new FormData(element).get("users")).split(/[\s,]+/).filter((u) => u !== "")
    await call("POST", users)
    element.reset()
  }
  return (
    <section className="card" aria-labelledby="blocks">
      <h2 id="blocks">Blocked users</h2>
      <form onSubmit={(e) => void submit(e)}>
        <Field label="Numbers to block (comma or space separated)" name="users" required placeholder="15550001234" error={error} />
        <ErrorBox error={error} />
        <button type="submit" className="danger" disabled={busy}>Block</button>
      </form>
      {result !== undefined ? (
        <p role="status" data-testid="block-result">
          {result.verb}: {result.answer.succeeded.map((s) => s.user).join(", ") || "none"}.
          {result.answer.failed.map((f) => <span key={f.user}> Failed {f.user}: {f.errors.map((e) => e.message).join("; ")}.</span>)}
        </p>
      ) : null}
      {blocked.length === 0 ? <p className="muted">No number blocked from this page yet.</p> : (
        <ul aria-label="Blocked from this page">
          {blocked.map((user) => (
            <li key={user}>{user} <button type="button" disabled={busy} aria-label={`Unblock ${user}`} onClick={() => void call("DELETE", [user])}>Unblock</button></li>
          ))}
        </ul>
      )}
    </section>
  )
}
