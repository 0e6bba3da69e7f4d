import { createContext, useContext } from "react"
import type { Me } from "./api/types"

export interface Session {
  readonly me: Me
  /** Reads /me again (after a change of plan or usage). */
  readonly refresh: () => void
  readonly signedOut: () => void
}

export const SessionContext = createContext<Session | undefined>(undefined)

/** The signed-in session; pages under the layout are only rendered with one. */
export const useSession = (): Session => {
  const session = useContext(SessionContext)
  if (session === undefined) throw new Error("useSession outside a signed-in page")
  return session
}
