import { type ChangeEvent, useId, useState } from "react"
import type { ApiError } from "../../api/api-error"
import { uploadHeaderMedia } from "../../api/templates"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import type { HeaderKind, HeaderState } from "./builder-model"
import { errorAt } from "./field-issues"

const ACCEPT: Partial<Record<HeaderKind, string>> = { IMAGE: "image/jpeg,image/png", VIDEO: "video/mp4", DOCUMENT: "application/pdf" }

/** The header sample of a media header: a file uploaded through POST /templates/header-media, kept as its handle. */
const MediaUpload = ({ header, onChange, channelId, error, at, label }: {
  header: HeaderState
  onChange: (h: HeaderState) => void
  channelId: number | undefined
  error: ApiError | undefined
  at: string
  label: string
}) => {
  const id = useId()
  const [busy, setBusy] = useState(false)
  const [uploadError, setUploadError] = useState<ApiError>()
  const [fileName, setFileName] = useState<string>()
  const fieldError = errorAt(error, `${at}.example.header_handle`)
  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0]
    if (file === undefined || channelId === undefined) return
    setBusy(true)
    try {
      const { handle } = await uploadHeaderMedia(channelId, file)
      setUploadError(undefined)
      setFileName(file.name)
      onChange({ ...header, handle })
    } catch (e) {
      setUploadError(e as ApiError)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="file"
        accept={ACCEPT[header.format]}
        disabled={channelId === undefined || busy}
        aria-invalid={fieldError !== undefined || undefined}
        aria-describedby={`${id}-state`}
        onChange={(e) => void upload(e)}
      />
      <small className="muted" id={`${id}-state`} role="status">
        {channelId === undefined ? "Choose the channel first: the sample is uploaded to its account."
          : busy ? "Uploading…"
          : header.handle !== "" ? <>Uploaded{fileName !== undefined ? ` ${fileName}` : ""}: handle <code className="handle">{header.handle.slice(0, 24)}…</code></>
          : `${header.format === "IMAGE" ? "JPEG or PNG up to 5 MB" : header.format === "VIDEO" ? "MP4 up to 16 MB" : "PDF up to 100 MB"}; sent to the upstream as the header's sample.`}
      </small>
      {fieldError !== undefined ? <small className="field-error">{fieldError.message}</small> : null}
      <ErrorBox error={uploadError} />
    </div>
  )
}

/** A HEADER: none, TEXT (with its text), a media format (with an uploaded sample) or LOCATION. */
export const HeaderSection = ({ header, onChange, channelId, error, at, formats, legend }: {
  header: HeaderState
  onChange: (h: HeaderState) => void
  channelId: number | undefined
  error: ApiError | undefined
  /** The component's path in a 422 (`components.0`). */
  at: string
  formats: ReadonlyArray<HeaderKind>
  legend: string
}) => (
  <fieldset>
    <legend>{legend}</legend>
    <SelectField label={`${legend} format`} value={header.format} onChange={(e) => onChange({ format: e.currentTarget.value as HeaderKind, text: header.text, handle: "" })}>
      {formats.map((f) => <option key={f} value={f}>{f === "NONE" ? "No header" : f.toLowerCase()}</option>)}
    </SelectField>
    {header.format === "TEXT"
      ? <Field label="Header text" name={`${at}.text`} value={header.text} maxLength={60} error={errorAt(error, `${at}.text`)} onChange={(e) => onChange({ ...header, text: e.currentTarget.value })} />
      : null}
    {header.format === "IMAGE" || header.format === "VIDEO" || header.format === "DOCUMENT"
      ? <MediaUpload header={header} onChange={onChange} channelId={channelId} error={error} at={at} label={`${legend} sample (${header.format.toLowerCase()})`} />
      : null}
    {header.format === "LOCATION" ? <p className="muted">A location header: the location is given when the template is sent.</p> : null}
  </fieldset>
)
