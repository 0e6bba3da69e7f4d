import { type FormEvent, useState } from "react"
import type { ApiError } from "../../api/api-error"
import { del, get, post } from "../../api/client"
import type { Role, TeamAdd, TeamMember } from "../../api/types"
import { ROLES } from "../../api/vocabulary"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import { Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { useSession } from "../../session"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"

const manages = (role: Role) => role === "owner" || role === "admin"

/** Add a member: an existing user by email, or a new user (then with a name and a first password). */
const AddMemberForm = ({ onAdded }: { onAdded: (m: TeamMember) => void }) => {
  const { me } = useSession()
  const { busy, error, run } = useSubmit()
  const [added, setAdded] = useState<TeamMember>()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const form = Object.fromEntries(new FormData(element)) as Record<string, string>
    const body: TeamAdd = {
      email: form.email ?? "",
      role: form.role as Role,
      ...(form.name ? { name: form.name } : {}),
      ...(form.password ? { password: form.password } : {})
    }
    await run(async () => {
      const member = await post<TeamMember>("/platform/dashboard/team", body)
      setAdded(member)
      onAdded(member)
      element.reset()
    })
  }
  return (
    <form className="card" aria-labelledby="add-member" onSubmit={(e) => void submit(e)}>
      <h3 id="add-member">Add a member</h3>
      <p className="muted">
        Someone who already has a user here is added by email alone and keeps their own name and password. For someone new,
        give a name and a first password and pass them on yourself: there is no invitation email.
      </p>
      <div className="row">
        <Field label="Member email" name="email" type="email" required autoComplete="off" error={error} />
        <SelectField label="Role" name="role" defaultValue="developer">
          {ROLES.filter((r) => r !== "owner" || me.role === "owner").map((r) => <option key={r} value={r}>{r}</option>)}
        </SelectField>
        <Field label="Name (new user only)" name="name" autoComplete="off" error={error} />
        <Field label="First password (new user only)" name="password" type="password" autoComplete="new-password" minLength={8} error={error} />
      </div>
      <ErrorBox error={error} />
      <button type="submit" className="primary" disabled={busy}>Add member</button>
      {added !== undefined ? <p role="status">Added {added.email} as {added.role}.</p> : null}
    </form>
  )
}

/** The account's members and their roles; add (owner or admin), remove (confirmed), leave. */
export const TeamSection = () => {
  const { me, signedOut } = useSession()
  const team = useResource(() => get<ReadonlyArray<TeamMember>>("/platform/dashboard/team"), "team")
  const [error, setError] = useState<ApiError>()
  const remove = (member: TeamMember) => async () => {
    try {
      await del(`/platform/dashboard/team/${member.user_id}`)
      setError(undefined)
      // Leaving ends this session on the account.
      if (member.user_id === me.user.id) return signedOut()
    } catch (e) {
      setError(e as ApiError)
    }
    team.reload()
  }
  return (
    <section aria-labelledby="team">
      <h2 id="team">Team</h2>
      <p className="muted">Owners do everything; admins everything but plan changes and owners; developers use the API and the console. A role is changed by removing the member and adding them again.</p>
      <ErrorBox error={team.error ?? error} />
      {team.loading && team.data === undefined ? <Loading what="members" /> : null}
      {team.data !== undefined ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Members</caption>
            <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Member since</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {team.data.map((m) => {
                const self = m.user_id === me.user.id
                const may = self || (manages(me.role) && (m.role !== "owner" || me.role === "owner"))
                return (
                  <tr key={m.user_id}>
                    <td>{m.name}{self ? <span className="muted"> (you)</span> : null}</td>
                    <td>{m.email}</td>
                    <td><span className="badge">{m.role}</span></td>
                    <td><Time iso={m.created_at} /></td>
                    <td className="actions">
                      {may ? (
                        <ConfirmButton label={self ? "Leave" : "Remove"} ariaLabel={self ? "Leave the account" : `Remove ${m.email}`}
                          title={self ? "Leave this account?" : `Remove ${m.email}?`} confirmLabel={self ? "Leave" : "Remove"} action={remove(m)}>
                          {self
                            ? "You lose access to this account at once and are logged out of it."
                            : `${m.name} loses access to this account at once; their sessions on it end. Their user and other accounts stay.`}
                        </ConfirmButton>
                      ) : null}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {manages(me.role) ? <AddMemberForm onAdded={() => team.reload()} /> : null}
    </section>
  )
}
