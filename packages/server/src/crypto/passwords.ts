import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

const N = 16384
const R = 8
const P = 1
const KEY_LENGTH = 32

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) => {
      resume(error ? Effect.die(error) : Effect.succeed(key))
    })
  })

/** `scrypt$N$r$p$salt$hash` (base64url), so the parameters can be raised later without a migration. */
export const hashPassword = (password: string) =>
  Effect.map(
    Effect.suspend(() => {
      const salt = randomBytes(16)
      return Effect.map(derive(password, salt, N, R, P), (key) => [salt, key] as const)
    }),
    ([salt, key]) => `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`
  )

const DUMMY = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString("base64url")}$${Buffer.alloc(KEY_LENGTH).toString("base64url")}`

/**
 * Constant-time comparison. With no stored hash (unknown email) it still spends one
 * derivation on a dummy, so a login for an unknown email takes as long as a wrong password.
 */
export const verifyPassword = (password: string, stored: string | null) =>
  Effect.gen(function*() {
    const [scheme, n, r, p, salt, hash] = (stored ?? DUMMY).split("$")
    if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false
    const expected = Buffer.from(hash, "base64url")
    const key = yield* derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p))
    return stored !== null && key.length === expected.length && timingSafeEqual(key, expected)
  })
