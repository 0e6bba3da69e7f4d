import { Schema } from "effect"

/** The 11 API-key scopes of v1 (SPEC §5.3). A new key gets all of them by default. */
export const Scopes = [
  "send:messages",
  "manage:templates",
  "upload:media",
  "read:messages",
  "read:conversations",
  "read:contacts",
  "manage:data",
  "manage:webhooks",
  "manage:channels",
  "send:broadcasts",
  "read:channels"
] as const

export const Scope = Schema.Literal(...Scopes).annotations({ identifier: "Scope" })
export type Scope = typeof Scope.Type
