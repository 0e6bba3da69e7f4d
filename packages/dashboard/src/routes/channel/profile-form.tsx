import type { FormEvent } from "react"
import { get, post } from "../../api/client"
import type { ChannelProfile, ChannelProfileUpdate } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { Loading } from "../../components/states"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"

const TEXTS = [
  { name: "about", label: "About", max: 139 },
  { name: "description", label: "Description", max: 256 },
  { name: "address", label: "Address", max: 256 },
  { name: "email", label: "Email", max: 128 },
  { name: "vertical", label: "Vertical (industry)", max: undefined }
] as const

/** A chat channel's business profile as the upstream holds it, and its edit (only changed fields are sent). */
export const ProfileForm = ({ channelId }: { channelId: number }) => {
  const path = `/platform/v1/channels/${channelId}/profile`
  const profile = useResource(() => get<ChannelProfile>(path), String(channelId))
  const { busy, error, run } = useSubmit()
  const p = profile.data
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const body: Record<string, unknown> = {}
    for (const { name } of TEXTS) {
      const value = String(form.get(name) ?? "").trim()
      if (value !== (p?.[name] ?? "")) body[name] = value
    }
    const websites = form.getAll("websites").map(String).map((w) => w.trim()).filter((w) => w !== "")
    if (websites.join("\n") !== (p?.websites ?? []).join("\n")) body.websites = websites
    await run(async () => {
      await post<ChannelProfile>(path, body as ChannelProfileUpdate)
      profile.reload()
    })
  }
  return (
    <section className="card" aria-labelledby="profile">
      <h2 id="profile">Business profile</h2>
      <ErrorBox error={profile.error} />
      {profile.loading && p === undefined ? <Loading what="the profile" /> : null}
      {p !== undefined ? (
        <form onSubmit={(e) => void submit(e)} key={JSON.stringify(p)}>
          {TEXTS.map(({ name, label, max }) => (
            <Field key={name} label={label} name={name} maxLength={max} defaultValue={p[name] ?? ""} error={error} />
          ))}
          <Field label="Website 1" name="websites" type="url" defaultValue={p.websites[0] ?? ""} error={error} />
          <Field label="Website 2" name="websites" type="url" defaultValue={p.websites[1] ?? ""} error={error} />
          <ErrorBox error={error} />
          <button type="submit" className="primary" disabled={busy}>Save profile</button>
        </form>
      ) : null}
    </section>
  )
}
