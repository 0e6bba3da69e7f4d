/*
 * What makes two recipients of a broadcast the same person. On a chat channel the
 * upstream reaches a number by its digits alone ("+1 555 123 4567", "+15551234567"
 * and "15551234567" are one WhatsApp user), so the key is the digits (the text
 * itself when it has none, as the conversation's peer is in messages.ts); a social
 * channel's recipient is an opaque id, so the key is the exact text. Stored in
 * broadcast_recipients.to_key under a unique index per broadcast (migration 0019,
 * whose backfill computes the same key in SQL).
 */
export const recipientKey = (channelType: "chat" | "social", to: string): string =>
  channelType === "chat" ? to.replace(/[^0-9]/g, "") || to : to

/** The first recipient given for each key, in the order given. */
export const firstPerKey = <R extends { readonly to: string }>(
  channelType: "chat" | "social",
  recipients: ReadonlyArray<R>
): ReadonlyArray<R & { readonly key: string }> => {
  const unique = new Map<string, R & { readonly key: string }>()
  for (const r of recipients) {
    const key = recipientKey(channelType, r.to)
    if (!unique.has(key)) unique.set(key, { ...r, key })
  }
  return [...unique.values()]
}
