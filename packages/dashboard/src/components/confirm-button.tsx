import { type KeyboardEvent, type ReactNode, useId, useRef, useState } from "react"

/**
 * Keeps Tab inside an open dialog: from its last control to its first and back (the page
 * behind a modal dialog is inert, but Tab would otherwise leave for the browser's own UI).
 */
const holdFocus = (event: KeyboardEvent<HTMLDialogElement>) => {
  if (event.key !== "Tab") return
  const controls = [...event.currentTarget.querySelectorAll<HTMLElement>("button:not(:disabled), a[href], input:not(:disabled), select, textarea, [tabindex]:not([tabindex='-1'])")]
  const first = controls[0]
  const last = controls[controls.length - 1]
  if (first === undefined || last === undefined) return
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault()
    first.focus()
  }
}

/**
 * A destructive action behind a modal confirmation (`<dialog>`: focus moves into it and
 * stays there, Escape cancels and focus returns to the button). `action` runs on confirm;
 * its failure is shown by the caller.
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
      <dialog ref={dialog} aria-labelledby={titleId} onKeyDown={holdFocus}>
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
