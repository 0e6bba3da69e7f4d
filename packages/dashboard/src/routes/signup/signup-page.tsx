import type { FormEvent } from "react"
import { post } from "../../api/client"
import type { Me, Signup } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field } from "../../components/field"
import { Link } from "../../router"
import { useSubmit } from "../../use-submit"

/** Create a user and their account (free plan); the server signs them in. */
export const SignupPage = ({ onSignedIn }: { onSignedIn: (me: Me) => void }) => {
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const accountName = String(form.get("account_name") ?? "").trim()
    const body: Signup = {
      name: String(form.get("name")),
      email: String(form.get("email")),
      password: String(form.get("password")),
      ...(accountName === "" ? {} : { account_name: accountName })
    }
    await run(async () => {
      onSignedIn(await post<Me>("/platform/dashboard/signup", body))
    })
  }
  return (
    <main id="main" className="auth">
      <h1>Create your account</h1>
      <form onSubmit={(e) => void submit(e)}>
        <Field label="Your name" name="name" autoComplete="name" required error={error} />
        <Field label="Email" name="email" type="email" autoComplete="username" required error={error} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." error={error} />
        <Field label="Account name (optional)" name="account_name" autoComplete="organization" error={error} />
        <ErrorBox error={error} />
        <button type="submit" className="primary" disabled={busy}>Sign up</button>
      </form>
      <p>Have an account? <Link to="/login">Log in</Link></p>
    </main>
  )
}
