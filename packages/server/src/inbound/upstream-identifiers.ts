import type { Identifiers } from "./channel-directory.js"
import { at, isObject, str } from "./message-content.js"

/** Every identifier a payload names, for one directory lookup (any JSON: what is not an id is skipped). */
export const identifiersOf = (payload: unknown): Identifiers => {
  const phone = new Set<string>()
  const waba = new Set<string>()
  const social = new Set<string>()
  const object = at(payload, "object")
  const entries = at(payload, "entry")
  for (const entry of Array.isArray(entries) ? entries : []) {
    if (!isObject(entry)) continue
    const id = str(entry.id)
    if (object === "whatsapp_business_account") {
      // A change without metadata (and an entry whose changes are not a list) goes by the WABA.
      if (!Array.isArray(entry.changes)) {
        if (id !== null) waba.add(id)
        continue
      }
      for (const change of entry.changes) {
        const pn = phoneNumberIdOf(at(change, "value"))
        if (pn !== undefined) phone.add(pn)
        else if (id !== null) waba.add(id)
      }
    } else if ((object === "instagram" || object === "page") && id !== null) social.add(id)
  }
  return { phoneNumberIds: [...phone], wabaIds: [...waba], socialIds: [...social] }
}

/** The phone number a change's value names in its metadata, when it is a string. */
export const phoneNumberIdOf = (value: unknown): string | undefined => str(at(value, "metadata", "phone_number_id")) ?? undefined
