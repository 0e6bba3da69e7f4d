import { useId } from "react"
import { CopyButton } from "./copy-button"

/** A secret the API answers once (a signing secret, a raw-forward secret): shown with a copy button until dismissed. */
export const SecretOnce = ({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) => {
  const id = useId()
  return (
    <section className="card notice" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p>Its secret, shown only this once:</p>
      <p><code className="secret" data-testid="secret-once">{secret}</code></p>
      <CopyButton text={secret} label="Copy secret" /> <button type="button" onClick={onDone}>I have copied it</button>
    </section>
  )
}
