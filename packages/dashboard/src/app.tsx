import { useCallback, useEffect, useState } from "react"
import { ApiError } from "./api/api-error"
import { get, setUnauthorizedHandler } from "./api/client"
import type { Me } from "./api/types"
import { ErrorBox } from "./components/error-box"
import { Layout } from "./components/layout"
import { Loading } from "./components/states"
import { pageFor } from "./pages"
import { LoginPage } from "./routes/login/login-page"
import { SignupPage } from "./routes/signup/signup-page"
import { navigate, useLocation } from "./router"
import { SessionContext } from "./session"

type State = { readonly _tag: "loading" } | { readonly _tag: "out" } | { readonly _tag: "in"; readonly me: Me } | { readonly _tag: "failed"; readonly error: ApiError }

const PUBLIC = new Set(["/login", "/signup"])

/** The session gate: sign-up and log-in pages without a session, the console with one. */
export const App = () => {
  const location = useLocation()
  const [state, setState] = useState<State>({ _tag: "loading" })
  const load = useCallback(() => {
    get<Me>("/platform/dashboard/me").then(
      (me) => setState({ _tag: "in", me }),
      (error: ApiError) => setState(error.status === 401 ? { _tag: "out" } : { _tag: "failed", error })
    )
  }, [])
  useEffect(() => {
    setUnauthorizedHandler(() => setState({ _tag: "out" }))
    load()
  }, [load])

  const signedIn = (me: Me) => {
    setState({ _tag: "in", me })
    const next = location.query.get("next")
    navigate(next !== null && next.startsWith("/") && !next.startsWith("//") ? next : "/", { replace: true })
  }
  const out = state._tag === "out"
  const page = state._tag === "in" ? pageFor(location) : undefined
  const title = out ? (location.path === "/signup" ? "Sign up" : "Log in") : page?.title ?? "Console"
  useEffect(() => {
    document.title = `${title} · Platform console`
  }, [title])
  useEffect(() => {
    // Signed out on a console page: to the login, which brings them back here after.
    if (out && !PUBLIC.has(location.path)) {
      const back = `${location.path}${location.query.size > 0 ? `?${location.query}` : ""}`
      navigate(`/login${back === "/" ? "" : `?next=${encodeURIComponent(back)}`}`, { replace: true })
    }
    if (state._tag === "in" && PUBLIC.has(location.path)) navigate("/", { replace: true })
  }, [out, state._tag, location])

  if (state._tag === "loading") return <main id="main" className="auth"><Loading what="the console" /></main>
  if (state._tag === "failed") return <main id="main" className="auth"><h1>The console could not start</h1><ErrorBox error={state.error} /><button type="button" onClick={load}>Try again</button></main>
  if (state._tag === "out") return location.path === "/signup" ? <SignupPage onSignedIn={signedIn} /> : <LoginPage onSignedIn={signedIn} />
  return (
    <SessionContext.Provider value={{ me: state.me, refresh: load, signedOut: () => { setState({ _tag: "out" }); navigate("/login", { replace: true }) } }}>
      <Layout location={location}>{page!.node}</Layout>
    </SessionContext.Provider>
  )
}
