const PREFIX = "@platform/webhook-verify: "

/** The raw request body as received: a string, bytes, or an ArrayBuffer. */
export type RawBody = string | Uint8Array | ArrayBuffer

/** Creates the package-prefixed TypeError thrown on misuse. */
export function misuse(message: string): TypeError {
  return new TypeError(PREFIX + message)
}

/** A verification or parsing failure: an ordinary result, never an exception. */
export interface VerifyFailure<R extends string = string> {
  /** Always false on failure. */
  readonly ok: false
  /** Machine-readable reason. */
  readonly reason: R
  /** Human-readable explanation that diagnoses the usual mistake. */
  readonly message: string
}

/** Builds a failure result. */
export function failure<R extends string>(reason: R, message: string): VerifyFailure<R> {
  return { ok: false, reason, message }
}

/** Throws a TypeError unless `body` is a raw body (string, Uint8Array, ArrayBuffer or another ArrayBuffer view). */
export function assertRawBody(body: unknown, fn: string): asserts body is RawBody | ArrayBufferView {
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer) return
  if (ArrayBuffer.isView(body)) return
  if (body === undefined || body === null) {
    throw misuse(
      `${fn}() needs the raw request body (string, Uint8Array or ArrayBuffer) but got ${String(body)}; ` +
        "read the exact bytes received before any JSON parsing"
    )
  }
  if (typeof body === "object") {
    throw misuse(
      `${fn}() got an already-parsed object as the body; pass the raw request body (string, Uint8Array or ArrayBuffer) ` +
        'exactly as received: use express.raw({ type: "application/json" }) instead of express.json(), ' +
        "or `await request.text()` in a Fetch handler, because re-serialized JSON never matches the signature"
    )
  }
  throw misuse(`${fn}() needs the raw request body (string, Uint8Array or ArrayBuffer) but got a ${typeof body}`)
}

/** Throws a TypeError unless `secret` is a non-empty string without surrounding whitespace. */
export function assertSecret(secret: unknown, fn: string): asserts secret is string {
  if (typeof secret !== "string" || secret.length === 0) {
    throw misuse(
      `${fn}() needs the signing secret as a non-empty string but got ${secret === "" ? "an empty string" : typeof secret}; ` +
        "check that the environment variable holding it is set"
    )
  }
  if (secret.trim() !== secret) {
    throw misuse(
      `${fn}() got a secret with leading or trailing whitespace; remove it (a trailing newline from a .env file or a copy-paste is the usual cause)`
    )
  }
}
