import { useState } from "react"

/** Copies `text` to the clipboard and says so (in a live region, for screen readers too). */
export const CopyButton = ({ text, label = "Copy" }: { text: string; label?: string }) => {
  const [copied, setCopied] = useState<"yes" | "failed" | undefined>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied("yes")
    } catch {
      setCopied("failed")
    }
  }
  return (
    <>
      <button type="button" onClick={() => void copy()}>{label}</button>
      <span role="status" className="muted">{copied === "yes" ? " Copied" : copied === "failed" ? " Select the text and copy it" : ""}</span>
    </>
  )
}
