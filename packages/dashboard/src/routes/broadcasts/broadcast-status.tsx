import type { BroadcastStatus } from "../../api/types"

/** A broadcast's state as a badge: completed green, failed red, scheduled and sending amber. */
export const BroadcastStatusBadge = ({ status }: { status: BroadcastStatus }) => (
  <span className={`badge ${status === "completed" ? "on" : status === "failed" ? "off" : status === "draft" ? "" : "wait"}`}>{status}</span>
)

/** States in which the broadcast still changes by itself: its page polls while it is in one. */
export const isLive = (status: BroadcastStatus) => status === "sending" || status === "scheduled"
