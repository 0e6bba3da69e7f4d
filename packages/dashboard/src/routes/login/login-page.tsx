import { type FormEvent, useState } from "react"
import type { ApiError } from "../../api/api-error"
import { post } from "../../api/client"
import type { Me } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { Link } from "../../router"

/** Sign in with email and password; the server sets the session cookie. */
export const LoginPage = ({ onSignedIn }: { onSignedIn: (me: Me) => void }) => {
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setBusy(true)
    try {
      onSignedIn(await post<Me>("/platform/dashboard/login", { email: form.get("email"), password: form.get("password") }))
    } catch (e) {
      setError(e as ApiError)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main id="main" className="auth">
      <h1>Log in</h1>
      <form onSubmit={(e) => void submit(e)}>
        <Field label="Email" name="email" type="email" autoComplete="username" required error={error} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required error={error} />
        <ErrorBox error={error} />
        <button type="submit" className="primary" disabled={busy}>Log in</button>
      </form>
      <p>New here? <Link to="/signup">Create an account</Link></p>
    </main>
  )
}
