import type { RawBody } from "./errors.js"

const encoder = new TextEncoder()

/** Encodes a string as UTF-8 bytes. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text)
}

/** Returns the bytes of a raw body (strings are UTF-8 encoded; views are not copied). */
export function toBytes(body: RawBody | ArrayBufferView): Uint8Array {
  if (typeof body === "string") return encoder.encode(body)
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
}

/** Concatenates byte arrays. */
export function concatBytes(parts: ReadonlyArray<Uint8Array>): Uint8Array {
  if (parts.length === 1) return parts[0]!
  let length = 0
  for (const part of parts) length += part.byteLength
  const out = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

const HEX = "0123456789abcdef"

/** Encodes bytes as lowercase hex. */
export function bytesToHex(bytes: Uint8Array): string {
  let out = ""
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    out += HEX[b >> 4]! + HEX[b & 15]!
  }
  return out
}

/** Whether `text` from `start` to its end is lowercase hex digits only (`0-9a-f`). */
export function isLowerHex(text: string, start: number): boolean {
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false
  }
  return true
}

/** Decodes standard base64, or returns null when it is not valid base64. */
export function base64ToBytes(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null
  let binary: string
  try {
    binary = atob(text)
  } catch {
    return null
  }
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

/** Encodes bytes as standard base64 with padding. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = ""
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!)
  return btoa(binary)
}

/** Compares `a` from `offset` to its end with all of `b`, in time that depends only on their lengths (no early exit on a difference). */
export function timingSafeEqualText(a: string, offset: number, b: string): boolean {
  const length = b.length
  if (a.length - offset !== length) return false
  let diff = 0
  for (let i = 0; i < length; i++) diff |= a.charCodeAt(offset + i) ^ b.charCodeAt(i)
  return diff === 0
}

/** Compares two byte arrays in time that depends only on their lengths. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}
