import { type ReactNode, useId, useRef, useState } from "react"

/**
 * A destructive action behind a modal confirmation (`<dialog>`: focus moves into it,
 * Escape cancels). `action` runs on confirm; its failure is shown by the caller.
 */
export const ConfirmButton = (props: {
  readonly label: string
  /** The button's accessible name when `label` alone is ambiguous in a table ("Delete" → "Delete key ci"). */
  readonly ariaLabel?: string
  readonly title: string
  readonly children: ReactNode
  readonly confirmLabel: string
  readonly action: () => Promise<unknown>
  readonly className?: string
}) => {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const [busy, setBusy] = useState(false)
  const confirm = async () => {
    setBusy(true)
    try {
      await props.action()
    } finally {
      setBusy(false)
      dialog.current?.close()
    }
  }
  return (
    <>
      <button type="button" className={props.className ?? "danger"} aria-label={props.ariaLabel} onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <h2 id={titleId}>{props.title}</h2>
        <div>{props.children}</div>
        <div className="actions">
          <button type="button" onClick={() => dialog.current?.close()} autoFocus>Cancel</button>
          <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>{props.confirmLabel}</button>
        </div>
      </dialog>
    </>
  )
}
