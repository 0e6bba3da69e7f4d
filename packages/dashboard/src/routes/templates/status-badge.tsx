import type { Template } from "../../api/types"
import { statusOf } from "../../api/templates"

/** meta_status as a badge: approved green, rejected red, pending amber. */
export const StatusBadge = ({ template }: { template: Template }) => {
  const status = statusOf(template)
  const tone = status === "approved" ? "on" : status === "rejected" ? "off" : status === "pending" ? "wait" : ""
  return <span className={`badge ${tone}`} data-testid="template-status">{status ?? "not submitted"}</span>
}
