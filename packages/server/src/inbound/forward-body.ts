import { rawArray, rawMember, type RawJson, withMember } from "./compact-json.js"

/** What one channel is forwarded of a POST: entry index to its change indexes, or "all" (a social entry). */
export interface Selection {
  readonly entries: Map<number, Set<number> | "all">
  other: boolean
}

/** The compact body forwarded to one channel: only its own entries and changes. */
export const bodyFor = (raw: RawJson, entryNode: RawJson | undefined, totalEntries: number, selection: Selection): string => {
  if (entryNode === undefined || entryNode.kind !== "array") return raw.text
  let whole = selection.entries.size === totalEntries
  if (whole) {
    for (const [ei, changes] of selection.entries) {
      if (changes === "all") continue
      const list = rawMember(entryNode.items[ei], "changes")
      if (list?.kind !== "array" || list.items.length !== changes.size) whole = false
    }
  }
  if (whole) return raw.text
  const entries: Array<RawJson> = []
  for (const [ei, item] of entryNode.items.entries()) {
    const changes = selection.entries.get(ei)
    if (changes === undefined) continue
    if (changes === "all") {
      entries.push(item)
      continue
    }
    const list = rawMember(item, "changes")
    if (list?.kind !== "array") continue
    entries.push(withMember(item, "changes", rawArray(list.items.filter((_, ci) => changes.has(ci)))))
  }
  return withMember(raw, "entry", rawArray(entries)).text
}
