import { type FormEvent, useRef, useState } from "react"
import { ApiError } from "../../api/api-error"
import { type LoadOutcome, loadRecipients, type RowRecipient } from "../../api/broadcasts"
import type { BodyVariables } from "../../api/template-variables"
import { ErrorBox } from "../../components/error-box"
import { useSubmit } from "../../use-submit"
import { csvRecipients, pastedRecipients, readCsv } from "./recipient-rows"

/** What one load did: added, duplicates skipped, and the rows the API refused with its reasons. */
const Outcome = ({ outcome, source }: { outcome: LoadOutcome; source: string }) => (
  <div data-testid="load-outcome">
    <p role="status">
      From the {source}: {outcome.added} added, {outcome.skipped} already there (skipped)
      {outcome.rejected.length > 0 ? `, ${outcome.rejected.length} rejected` : ""}.
    </p>
    {outcome.rejected.length > 0 ? (
      <div className="table-wrap">
        <table>
          <caption>Rejected rows</caption>
          <thead><tr><th>{source === "file" ? "Row" : "Line"}</th><th>Number</th><th>Reason (from the API)</th></tr></thead>
          <tbody>
            {outcome.rejected.map((r) => (
              <tr key={r.row}><td>{r.row}</td><td>{r.to === "" ? <span className="muted">(empty)</span> : r.to}</td><td>{r.reason}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
    ) : null}
    <ErrorBox error={outcome.error} />
  </div>
)

/**
 * Adds recipients to a draft or scheduled broadcast: pasted (one a line, the number then
 * its variables) or a CSV file (parsed in the browser); 1000 a call, the rows the API
 * refuses shown with its reasons while the others load.
 */
export const AddRecipientsForm = ({ broadcastId, variables, onLoaded }: {
  broadcastId: number
  variables: BodyVariables
  onLoaded: () => void
}) => {
  const { busy, error, run } = useSubmit()
  const [result, setResult] = useState<{ outcome: LoadOutcome; source: string }>()
  const file = useRef<HTMLInputElement>(null)
  const load = (source: string, rows: () => Promise<ReadonlyArray<RowRecipient>>, reset: () => void) =>
    run(async () => {
      const read = await rows()
      if (read.length === 0) throw noRows(source)
      const outcome = await loadRecipients(broadcastId, read)
      setResult({ outcome, source })
      if (outcome.error === undefined) reset()
      onLoaded()
    })
  const paste = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const text = String(new FormData(element).get("numbers") ?? "")
    void load("pasted lines", async () => pastedRecipients(text, variables), () => element.reset())
  }
  const upload = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const chosen = file.current?.files?.[0]
    if (chosen === undefined) return
    void load("file", async () => csvRecipients(await readCsv(chosen), variables), () => element.reset())
  }
  const hint = variables.names.length === 0
    ? "One number a line, in international format (+15551234567)."
    : `One number a line, then its variables in order (${variables.names.map((n) => `{{${n}}}`).join(", ")}), separated by commas: +15551234567, Ana`
  return (
    <section className="card" aria-labelledby="add-heading">
      <h2 id="add-heading">Add recipients</h2>
      <form onSubmit={paste} aria-label="Paste recipients">
        <div className="field">
          <label htmlFor="numbers">Numbers (one a line)</label>
          <textarea id="numbers" name="numbers" rows={5} required aria-describedby="numbers-hint" />
          <small className="muted" id="numbers-hint">{hint}</small>
        </div>
        <button type="submit" disabled={busy}>Add pasted numbers</button>
      </form>
      <form onSubmit={upload} aria-label="Upload a CSV file" className="upload">
        <div className="field">
          <label htmlFor="csv-file">CSV file</label>
          <input id="csv-file" ref={file} type="file" name="file" accept=".csv,text/csv" required aria-describedby="csv-hint" />
          <small className="muted" id="csv-hint">
            A header row is optional: a <code>to</code> (or <code>phone</code>) column holds the number, the other columns the variables
            {variables.names.length > 0 ? <> (named <code>{variables.names.join(", ")}</code>, or in order)</> : null}. Without a header the number comes first.
          </small>
        </div>
        <button type="submit" disabled={busy}>Upload CSV</button>
      </form>
      {busy ? <p className="muted" role="status">Adding recipients…</p> : null}
      <ErrorBox error={error} />
      {result !== undefined ? <Outcome outcome={result.outcome} source={result.source} /> : null}
    </section>
  )
}

const noRows = (source: string) => new ApiError(0, `Nothing to add: no recipient in the ${source}.`, undefined, "no_rows", undefined)
