import { useState } from "react"
import type { ApiError } from "../../api/api-error"
import { get, post } from "../../api/client"
import type { Billing, Plan } from "../../api/types"
import { PLAN_LIMITS, PLANS } from "../../api/vocabulary"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { Loading } from "../../components/states"
import { useSession } from "../../session"
import { useResource } from "../../use-resource"
import { UsageMeters } from "../overview/overview-page"

const n = (value: number) => value.toLocaleString()

/** The plan, this month's usage against its quotas, and the plans to change to (owner only; a downgrade confirmed). */
export const PlanSection = () => {
  const { me, refresh } = useSession()
  const billing = useResource(() => get<Billing>("/platform/dashboard/billing"), "billing")
  const [error, setError] = useState<ApiError>()
  const [changed, setChanged] = useState<Plan>()
  const [busy, setBusy] = useState(false)
  const current = billing.data?.plan ?? me.plan
  const change = (plan: Plan) => async () => {
    setBusy(true)
    try {
      await post<Billing>("/platform/dashboard/billing/plan", { plan })
      setError(undefined)
      setChanged(plan)
    } catch (e) {
      setError(e as ApiError)
      setChanged(undefined)
    } finally {
      setBusy(false)
    }
    billing.reload()
    refresh()
  }
  const owner = me.role === "owner"
  return (
    <section aria-labelledby="plan">
      <h2 id="plan">Plan <span className="badge" data-testid="current-plan">{current}</span></h2>
      <ErrorBox error={billing.error} />
      {billing.loading && billing.data === undefined ? <Loading what="usage" /> : null}
      {billing.data ? (
        <UsageMeters billing={billing.data} label={`Usage in ${billing.data.usage.period}`} />
      ) : null}
      <h3>Change plan</h3>
      {!owner ? <p className="muted">Only the account's owner can change the plan.</p> : null}
      <ErrorBox error={error} />
      {changed !== undefined && error === undefined ? <p role="status">The account is now on the {changed} plan.</p> : null}
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Plans and their monthly limits</caption>
          <thead><tr><th>Plan</th><th>Inbound messages</th><th>Template messages</th><th>Channels</th><th>Broadcasts</th><th>Recipients a broadcast</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {PLANS.map((plan) => {
              const l = PLAN_LIMITS[plan]
              const down = PLANS.indexOf(plan) < PLANS.indexOf(current)
              return (
                <tr key={plan} aria-current={plan === current ? "true" : undefined}>
                  <th scope="row">{plan}</th>
                  <td>{n(l.inbound_messages_per_month)}</td>
                  <td>{n(l.template_messages_per_month)}</td>
                  <td>{n(l.channels)}</td>
                  <td>{l.broadcasts_enabled ? n(l.broadcasts_per_month) : "none"}</td>
                  <td>{l.broadcasts_enabled ? n(l.broadcast_recipients_limit) : "—"}</td>
                  <td className="actions">
                    {plan === current ? <span className="badge on">Current plan</span> : !owner ? null : down ? (
                      <ConfirmButton label={`Downgrade to ${plan}`} title={`Downgrade to the ${plan} plan?`} confirmLabel="Downgrade" action={change(plan)}>
                        The limits drop at once: {n(l.inbound_messages_per_month)} inbound and {n(l.template_messages_per_month)} template
                        messages a month, {n(l.channels)} channel(s){l.broadcasts_enabled ? "" : ", no broadcasts"}. This month's usage so far counts
                        against them. An account with more connected channels than the plan allows has to disconnect some first.
                      </ConfirmButton>
                    ) : (
                      <button type="button" className="primary" disabled={busy} onClick={() => void change(plan)()}>Upgrade to {plan}</button>
                    )}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </section>
  )
}
