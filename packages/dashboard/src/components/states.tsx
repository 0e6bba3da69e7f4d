import type { ReactNode } from "react"

export const Loading = ({ what }: { what: string }) => <p className="muted" role="status" aria-live="polite">Loading {what}…</p>

/** What an empty list says, and what to do next. */
export const Empty = ({ children }: { children: ReactNode }) => <div className="empty">{children}</div>
