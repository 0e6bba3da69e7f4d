import { get } from "../../api/client"
import type { Billing } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Loading } from "../../components/states"
import { Link } from "../../router"
import { useSession } from "../../session"
import { useResource } from "../../use-resource"

export const Meter = ({ label, used, limit }: { label: string; used: number; limit: number }) => (
  <div className="meter">
    <div className="meter-label"><span>{label}</span><span>{used.toLocaleString()} of {limit.toLocaleString()}</span></div>
    <meter min={0} max={Math.max(limit, 1)} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} aria-label={`${label}: ${used} of ${limit}`} />
  </div>
)

/** The account: plan, this month's usage against the plan's quotas, and where to start. */
export const OverviewPage = () => {
  const { me } = useSession()
  const billing = useResource(() => get<Billing>("/platform/dashboard/billing"), "billing")
  return (
    <>
      <h1>{me.account.name}</h1>
      <p>Signed in as {me.user.email} ({me.role}). Plan <span className="badge">{me.plan}</span></p>
      <section aria-labelledby="usage">
        <h2 id="usage">Usage this month{billing.data ? ` (${billing.data.usage.period})` : ""}</h2>
        <ErrorBox error={billing.error} />
        {billing.loading && billing.data === undefined ? <Loading what="usage" /> : null}
        {billing.data ? (
          <div className="meters">
            <Meter label="Inbound messages" used={billing.data.usage.inbound_messages} limit={billing.data.limits.inbound_messages_per_month} />
            <Meter label="Template messages" used={billing.data.usage.template_messages} limit={billing.data.limits.template_messages_per_month} />
            <Meter label="Channels" used={billing.data.usage.channels} limit={billing.data.limits.channels} />
            {billing.data.limits.broadcasts_enabled
              ? <Meter label="Broadcasts" used={billing.data.usage.broadcasts} limit={billing.data.limits.broadcasts_per_month} />
              : <p className="muted">Broadcasts are not part of the {billing.data.plan} plan.</p>}
          </div>
        ) : null}
      </section>
      <section aria-labelledby="start">
        <h2 id="start">Get started</h2>
        <ol className="steps">
          <li><Link to="/api-keys">Create an API key</Link> for your code, the SDK or the CLI.</li>
          <li><Link to="/channels">Connect a channel</Link> (WhatsApp or Instagram).</li>
          <li><Link to="/webhooks">Subscribe a webhook</Link> and watch its <Link to="/webhooks/deliveries">deliveries</Link>.</li>
        </ol>
      </section>
    </>
  )
}
