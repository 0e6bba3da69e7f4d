import { get } from "../../api/client"
import type { DashboardChannel } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link } from "../../router"
import { useResource } from "../../use-resource"
import { ChannelHealthCell } from "../channels/channel-health"
import { nameOf } from "../channels/channels-page"
import { BlockList } from "./block-list"
import { InboundSwitch } from "./inbound-switch"
import { ProfileForm } from "./profile-form"
import { RawForwardForm } from "./raw-forward-form"

/** One channel: its facts, the inbound switch, raw forward, and for chat channels the business profile and blocks. */
export const ChannelPage = ({ id }: { id: string }) => {
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const c = channels.data?.find((ch) => String(ch.channel_id) === id)
  return (
    <>
      <p><Link to="/channels">« All channels</Link></p>
      <h1>Channel {id}</h1>
      <ErrorBox error={channels.error} />
      {channels.loading && channels.data === undefined ? <Loading what="the channel" /> : null}
      {channels.data !== undefined && c === undefined ? <Empty>This account has no channel {id}.</Empty> : null}
      {c !== undefined ? (
        <>
          <dl className="facts">
            <dt>Name</dt><dd>{nameOf(c)}</dd>
            <dt>Kind</dt><dd>{c.type === "chat" ? "WhatsApp" : "Instagram"}</dd>
            <dt>Status</dt><dd><span className={`badge ${c.status === "active" ? "on" : "off"}`}>{c.status}</span></dd>
            <dt>Quality</dt><dd>{c.quality_rating ?? "—"}</dd>
            <dt>Health</dt><dd><ChannelHealthCell channel={c} /></dd>
            <dt>Connected</dt><dd><Time iso={c.created_at} /></dd>
          </dl>
          {c.status !== "disconnected" ? (
            <>
              <InboundSwitch channel={c} onChanged={channels.reload} />
              <RawForwardForm channel={c} onChanged={channels.reload} />
              {c.type === "chat" ? <><ProfileForm channelId={c.channel_id} /><BlockList channelId={c.channel_id} /></> : null}
            </>
          ) : <p className="muted">Disconnected <Time iso={c.disconnected_at} />.</p>}
        </>
      ) : null}
    </>
  )
}
