import { get } from "../../api/client"
import type { DashboardChannel } from "../../api/types"
import { useResource } from "../../use-resource"

/** The account's chat channels still connected: the only ones templates live on. */
export const useChatChannels = () => {
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  return { ...channels, data: channels.data?.filter((c) => c.type === "chat" && c.status !== "disconnected") }
}

export const channelLabel = (c: DashboardChannel) => `${c.channel_id} ${c.name ?? c.display_phone_number ?? ""}`.trim()
