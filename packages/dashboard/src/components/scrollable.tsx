import type { ReactNode } from "react"

/**
 * A region that scrolls sideways when its content is wider than the screen (a table at
 * 390 px), so the page itself never does. It is named (`label`) and focusable, so a
 * keyboard user can scroll it with the arrow keys and a screen reader announces it.
 */
export const TableRegion = ({ label, children }: { label: string; children: ReactNode }) => (
  <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>{children}</div>
)

/** Code or a payload in a scrolling block, named and focusable like a table region. */
export const CodeBlock = ({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) => (
  <pre className="code" role="region" aria-label={label} tabIndex={0} data-testid={testId}>{children}</pre>
)
