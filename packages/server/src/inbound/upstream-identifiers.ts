import type { MetaWebhookPayload, WaChange } from "../upstream/webhook-payload.js"
import type { Identifiers } from "./channel-directory.js"

/** Every identifier a payload names, for one directory lookup. */
export const identifiersOf = (payload: MetaWebhookPayload): Identifiers => {
  const phone = new Set<string>()
  const waba = new Set<string>()
  const social = new Set<string>()
  if (payload.object === "whatsapp_business_account") {
    for (const entry of payload.entry) {
      for (const change of entry.changes) {
        const pn = phoneNumberIdOf(change)
        if (pn !== undefined) phone.add(pn)
        else waba.add(entry.id)
      }
    }
  } else {
    for (const entry of payload.entry) social.add(entry.id)
  }
  return { phoneNumberIds: [...phone], wabaIds: [...waba], socialIds: [...social] }
}

export const phoneNumberIdOf = (change: WaChange): string | undefined => {
  const value = change.value as { readonly metadata?: { readonly phone_number_id?: unknown } } | null
  const id = typeof value === "object" && value !== null ? value.metadata?.phone_number_id : undefined
  return typeof id === "string" ? id : undefined
}
