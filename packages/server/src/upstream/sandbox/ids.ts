import { randomBytes } from "node:crypto"

const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join("")

/** `wamid.` + base64 of Meta's internal framing, recognisable and unique. */
export const newWamid = (to: string): string =>
  `wamid.${Buffer.from(`\u0018\u000b${to.replace(/\D/g, "")}\u0015\u0002\u0000\u0011\u0018\u0012${randomBytes(9).toString("hex").toUpperCase()}\u0000`).toString("base64")}`

/** Instagram-style message id. */
export const newMid = (): string => `m_${randomBytes(24).toString("base64url")}`

/** Numeric Graph object ids (templates, media), always strings. */
export const newGraphId = (): string => `${1 + (randomBytes(1)[0]! % 9)}${digits(15)}`

export const newTraceId = (): string => `A${randomBytes(12).toString("base64url")}`
