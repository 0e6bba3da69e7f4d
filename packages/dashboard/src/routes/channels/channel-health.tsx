import { get } from "../../api/client"
import type { ChannelHealth, DashboardChannel } from "../../api/types"
import { useResource } from "../../use-resource"

/** A chat channel's health from the upstream (`can_send_message`); social channels have none. */
export const ChannelHealthCell = ({ channel }: { channel: DashboardChannel }) => {
  const live = channel.type === "chat" && channel.status === "active"
  const health = useResource(
    () => (live ? get<ChannelHealth>(`/platform/v1/channels/${channel.channel_id}/health`) : Promise.resolve(undefined)),
    `${channel.channel_id}-${live}`
  )
  if (!live) return <span className="muted">—</span>
  if (health.loading) return <span className="muted">checking…</span>
  if (health.error) return <span className="badge off" title={health.error.message}>unknown</span>
  const state = health.data?.can_send_message ?? "unknown"
  const problems = health.data?.entities.flatMap((e) => e.errors.map((x) => x.error_description ?? "")).filter(Boolean) ?? []
  return <span className={`badge ${state === "AVAILABLE" ? "on" : "off"}`} title={problems.join("; ") || undefined}>{state.toLowerCase()}</span>
}
