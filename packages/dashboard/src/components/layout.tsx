import { type ReactNode, useEffect, useState } from "react"
import { post } from "../api/client"
import { Link, type Location } from "../router"
import { useSession } from "../session"

/** The console's sections, in the nav's order. */
export const SECTIONS: ReadonlyArray<{ readonly to: string; readonly label: string }> = [
  { to: "/", label: "Overview" },
  { to: "/api-keys", label: "API keys" },
  { to: "/channels", label: "Channels" },
  { to: "/messages", label: "Messages" },
  { to: "/conversations", label: "Conversations" },
  { to: "/contacts", label: "Contacts" },
  { to: "/templates", label: "Templates" },
  { to: "/broadcasts", label: "Broadcasts" },
  { to: "/webhooks", label: "Webhooks" },
  { to: "/webhooks/deliveries", label: "Deliveries" },
  { to: "/events", label: "Live events" },
  { to: "/sandbox", label: "Sandbox" },
  { to: "/account", label: "Account" }
]

const current = (location: Location, to: string) =>
  to === "/" ? location.path === "/" : location.path === to || (location.path.startsWith(`${to}/`) && !SECTIONS.some((s) => s.to !== to && s.to.startsWith(to) && location.path.startsWith(s.to)))

/** Header, navigation (a menu button below 720 px) and the page. */
export const Layout = ({ location, children }: { location: Location; children: ReactNode }) => {
  const { me, signedOut } = useSession()
  const [open, setOpen] = useState(false)
  useEffect(() => setOpen(false), [location.path])
  const logout = async () => {
    await post("/platform/dashboard/logout").catch(() => undefined)
    signedOut()
  }
  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <Link to="/" className="brand">Platform console</Link>
        <button type="button" className="menu" aria-expanded={open} aria-controls="nav" onClick={() => setOpen(!open)}>Menu</button>
        <div className="who">
          <span title={me.user.email}>{me.account.name}</span> <span className="badge">{me.plan}</span>
          <button type="button" onClick={() => void logout()}>Log out</button>
        </div>
      </header>
      <nav id="nav" aria-label="Console" className={open ? "open" : ""}>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.to}>
              <Link to={s.to} aria-current={current(location, s.to) ? "page" : undefined}>{s.label}</Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>{children}</main>
    </div>
  )
}
