import { useState } from "react"
import type { ApiError } from "../../api/api-error"
import { del, get } from "../../api/client"
import type { DashboardChannel } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { TableRegion } from "../../components/scrollable"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link } from "../../router"
import { useSession } from "../../session"
import { useResource } from "../../use-resource"
import { ChannelHealthCell } from "./channel-health"
import { ConnectForm } from "./connect-form"

export const nameOf = (c: DashboardChannel) =>
  c.name ?? (c.type === "chat" ? c.display_phone_number ?? c.phone_number_id : c.username ? `@${c.username}` : c.social_id) ?? `#${c.channel_id}`

/** Channels: list with status, quality and health; connect; disconnect with confirmation. */
export const ChannelsPage = () => {
  const { refresh } = useSession()
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const [actionError, setActionError] = useState<ApiError>()
  const disconnect = (channel: DashboardChannel) => async () => {
    try {
      await del(`/platform/dashboard/channels/${channel.channel_id}`)
      setActionError(undefined)
    } catch (e) {
      setActionError(e as ApiError)
    }
    channels.reload()
    refresh()
  }
  const connected = channels.data?.filter((c) => c.status !== "disconnected") ?? []
  return (
    <>
      <h1>Channels</h1>
      <ErrorBox error={channels.error ?? actionError} />
      {channels.loading && channels.data === undefined ? <Loading what="channels" /> : null}
      {channels.data !== undefined && connected.length === 0 ? <Empty>No channel connected yet. Connect one below.</Empty> : null}
      {connected.length > 0 ? (
        <TableRegion label="Connected channels">
          <table>
            <caption className="sr-only">Connected channels</caption>
            <thead><tr><th>Id</th><th>Channel</th><th>Kind</th><th>Status</th><th>Inbound</th><th>Quality</th><th>Health</th><th>Connected</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {connected.map((c) => (
                <tr key={c.channel_id}>
                  <td><Link to={`/channels/${c.channel_id}`} aria-label={`Channel ${c.channel_id}`}>{c.channel_id}</Link></td>
                  <td>{nameOf(c)}</td>
                  <td>{c.type === "chat" ? "WhatsApp" : "Instagram"}</td>
                  <td><span className={`badge ${c.status === "active" ? "on" : "off"}`}>{c.status}</span></td>
                  <td>{c.inbound_enabled === false ? "off" : "on"}</td>
                  <td>{c.quality_rating ?? "—"}</td>
                  <td><ChannelHealthCell channel={c} /></td>
                  <td><Time iso={c.created_at} /></td>
                  <td className="actions">
                    <ConfirmButton label="Disconnect" ariaLabel={`Disconnect channel ${c.channel_id}`} title={`Disconnect ${nameOf(c)}?`} confirmLabel="Disconnect"
                      action={disconnect(c)}>
                      The channel stops sending and receiving messages. Connect it again to resume.
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      <ConnectForm onConnected={() => { channels.reload(); refresh() }} />
    </>
  )
}
