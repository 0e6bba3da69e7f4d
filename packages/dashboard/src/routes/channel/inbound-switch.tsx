import { patch } from "../../api/client"
import type { DashboardChannel } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { useSubmit } from "../../use-submit"

/** The inbound kill switch: turning inbound off is confirmed, turning it back on is not. */
export const InboundSwitch = ({ channel, onChanged }: { channel: DashboardChannel; onChanged: () => void }) => {
  const { busy, error, run } = useSubmit()
  const set = (enabled: boolean) => run(async () => {
    await patch(`/platform/v1/channels/${channel.channel_id}/inbound`, { enabled })
    onChanged()
  })
  const on = channel.inbound_enabled !== false
  return (
    <section className="card" aria-labelledby="inbound">
      <h2 id="inbound">Inbound messages</h2>
      <p>Inbound is <strong data-testid="inbound-state">{on ? "on" : "off"}</strong>.{" "}
        {on ? "Messages to this channel are stored and delivered to your webhooks." : "Messages to this channel are dropped: no rows, no webhooks."}</p>
      <ErrorBox error={error} />
      {on
        ? <ConfirmButton label="Turn inbound off" title="Turn inbound off?" confirmLabel="Turn off" action={() => set(false)}>
            Messages sent to this channel will be dropped until inbound is turned back on.
          </ConfirmButton>
        : <button type="button" className="primary" disabled={busy} onClick={() => void set(true)}>Turn inbound on</button>}
    </section>
  )
}
