import { type FormEvent, useEffect, useState } from "react"
import { request } from "../../api/client"
import type { BlockUsersResult } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { useSubmit } from "../../use-submit"

/** Where this browser session keeps a channel's numbers it blocked (the tab's sessionStorage). */
const storageKey = (channelId: number) => `platform.blocked.${channelId}`

const remembered = (channelId: number): ReadonlyArray<string> => {
  try {
    const list: unknown = JSON.parse(sessionStorage.getItem(storageKey(channelId)) ?? "[]")
    return Array.isArray(list) ? list.filter((u): u is string => typeof u === "string") : []
  } catch {
    return []
  }
}

/**
 * Block and unblock numbers. The API answers per user but has no route that lists the
 * upstream's block list (SPEC §4.8: block and unblock only), so the list here is what was
 * blocked from this browser session (kept in the tab's sessionStorage across reloads and pages).
 */
export const BlockList = ({ channelId }: { channelId: number }) => {
  const { busy, error, run } = useSubmit()
  const [blocked, setBlocked] = useState<ReadonlyArray<string>>(() => remembered(channelId))
  useEffect(() => {
    try {
      sessionStorage.setItem(storageKey(channelId), JSON.stringify(blocked))
    } catch {
      // Storage refused (private mode, quota): the list lives for this page only.
    }
  }, [channelId, blocked])
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
      <p className="muted">The API keeps no readable block list, so the numbers listed are those blocked from this page in this browser tab (kept across reloads).</p>
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
