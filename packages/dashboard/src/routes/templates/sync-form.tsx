import { type FormEvent, useState } from "react"
import { syncTemplates } from "../../api/templates"
import type { DashboardChannel, TemplateSyncResult } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { SelectField } from "../../components/field"
import { useSubmit } from "../../use-submit"
import { channelLabel } from "../template-builder/chat-channels"

/** POST /templates/sync for one channel, and the counts it answered. */
export const SyncForm = ({ channels, onSynced }: { channels: ReadonlyArray<DashboardChannel>; onSynced: () => void }) => {
  const { busy, error, run } = useSubmit()
  const [result, setResult] = useState<{ channel: string; counts: TemplateSyncResult }>()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const channel = String(new FormData(event.currentTarget).get("channel_id"))
    await run(async () => {
      setResult({ channel, counts: await syncTemplates(Number(channel)) })
      onSynced()
    })
  }
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="sync-title">
      <h2 id="sync-title">Sync from the upstream</h2>
      <p className="muted">Imports the templates the channel's business account has upstream (made elsewhere, or changed there) and updates their status.</p>
      <div className="toolbar">
        <SelectField label="Channel to sync" name="channel_id">
          {channels.map((c) => <option key={c.channel_id} value={c.channel_id}>{channelLabel(c)}</option>)}
        </SelectField>
      </div>
      <button type="submit" disabled={busy}>{busy ? "Syncing…" : "Sync templates"}</button>
      {result !== undefined ? (
        <p role="status" data-testid="sync-result">
          Channel {result.channel}: {result.counts.imported} imported, {result.counts.updated} updated, {result.counts.skipped} skipped, {result.counts.total} upstream in total.
        </p>
      ) : null}
      <ErrorBox error={error} />
    </form>
  )
}
