import { get } from "../../api/client"
import type { Billing } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Loading } from "../../components/states"
import { Link } from "../../router"
import { useSession } from "../../session"
import { useResource } from "../../use-resource"

const Meter = ({ label, used, limit }: { label: string; used: number; limit: number }) => (
  <div className="meter">
    <div className="meter-label"><span>{label}</span><span>{used.toLocaleString()} of {limit.toLocaleString()}</span></div>
    <meter min={0} max={Math.max(limit, 1)} value={Math.min(used, limit)} high={limit * 0.8} optimum={0} aria-label={`${label}: ${used} of ${limit}`} />
  </div>
)

/** This month's usage against each of the plan's quotas (broadcasts only where the plan has them). */
export const UsageMeters = ({ billing, label }: { billing: Billing; label?: string }) => (
  <div className="meters" {...(label === undefined ? {} : { "aria-label": label, role: "group" })}>
    <Meter label="Inbound messages" used={billing.usage.inbound_messages} limit={billing.limits.inbound_messages_per_month} />
    <Meter label="Template messages" used={billing.usage.template_messages} limit={billing.limits.template_messages_per_month} />
    <Meter label="Channels" used={billing.usage.channels} limit={billing.limits.channels} />
    {billing.limits.broadcasts_enabled
      ? <Meter label="Broadcasts" used={billing.usage.broadcasts} limit={billing.limits.broadcasts_per_month} />
      : <p className="muted">Broadcasts are not part of the {billing.plan} plan.</p>}
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
          <UsageMeters billing={billing.data} />
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
