import { useSession } from "../../session"
import { PlanSection } from "./plan-section"
import { TeamSection } from "./team-section"

/** The account: plan and usage against its quotas, plan changes, and the team. */
export const AccountPage = () => {
  const { me } = useSession()
  return (
    <>
      <h1>Account</h1>
      <p>{me.account.name}: signed in as {me.user.email} ({me.role}).</p>
      <PlanSection />
      <TeamSection />
    </>
  )
}
