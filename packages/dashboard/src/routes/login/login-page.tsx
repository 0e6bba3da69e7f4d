import type { FormEvent } from "react"
import { post } from "../../api/client"
import type { Me } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { Link } from "../../router"
import { useSubmit } from "../../use-submit"

/** Sign in with email and password; the server sets the session cookie. */
export const LoginPage = ({ onSignedIn }: { onSignedIn: (me: Me) => void }) => {
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    await run(async () => {
      onSignedIn(await post<Me>("/platform/dashboard/login", { email: form.get("email"), password: form.get("password") }))
    })
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
