import { Effect, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { AppConfig } from "../config.js"

const VERSION = 1
const IV_BYTES = 12
const TAG_BYTES = 16

interface KeyFile {
  readonly encryption_key: string
  readonly session_secret: string
}

/*
 * Development keys live in a file so that encrypted columns and sessions survive a
 * restart. It is created atomically (write a temporary file, then hard-link it into
 * place, which fails if another process won the race) so parallel processes agree.
 */
const loadOrCreateKeyFile = (dir: string): KeyFile => {
  const path = join(dir, "dev-secrets.json")
  try {
    return JSON.parse(readFileSync(path, "utf8")) as KeyFile
  } catch {
    mkdirSync(dir, { recursive: true })
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`
    const content: KeyFile = {
      encryption_key: randomBytes(32).toString("base64"),
      session_secret: randomBytes(32).toString("base64")
    }
    writeFileSync(tmp, JSON.stringify(content), { mode: 0o600 })
    try {
      linkSync(tmp, path)
    } catch {
      // another process created it first: theirs wins
    } finally {
      unlinkSync(tmp)
    }
    return JSON.parse(readFileSync(path, "utf8")) as KeyFile
  }
}

const decodeKey = (value: string, name: string): Buffer => {
  const key = Buffer.from(value, "base64")
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, base64-encoded`)
  return key
}

/**
 * Encryption at rest (AES-256-GCM under ENCRYPTION_KEY) for channel tokens and
 * webhook secrets, and HMAC signing under SESSION_SECRET for session tokens.
 * Without the variables in development the keys come from a file under DATA_DIR
 * (with a warning); an in-memory embedded database gets throwaway keys, since its
 * ciphertexts die with the process anyway.
 */
export class Secrets extends Effect.Service<Secrets>()("@platform/server/Secrets", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    let encryptionKey: Buffer
    let sessionKey: Buffer
    if (Option.isSome(config.encryptionKey) && Option.isSome(config.sessionSecret)) {
      encryptionKey = decodeKey(Redacted.value(config.encryptionKey.value), "ENCRYPTION_KEY")
      sessionKey = Buffer.from(Redacted.value(config.sessionSecret.value), "utf8")
    } else {
      const ephemeral = Option.isNone(config.databaseUrl) && config.pgliteMemory
      const file: KeyFile = ephemeral
        ? { encryption_key: randomBytes(32).toString("base64"), session_secret: randomBytes(32).toString("base64") }
        : loadOrCreateKeyFile(config.dataDir)
      if (!ephemeral) {
        yield* Effect.logWarning(
          "ENCRYPTION_KEY/SESSION_SECRET not set: using development keys from DATA_DIR/dev-secrets.json; set both in production"
        )
      }
      encryptionKey = Option.match(config.encryptionKey, {
        onSome: (k) => decodeKey(Redacted.value(k), "ENCRYPTION_KEY"),
        onNone: () => decodeKey(file.encryption_key, "dev encryption key")
      })
      sessionKey = Option.match(config.sessionSecret, {
        onSome: (s) => Buffer.from(Redacted.value(s), "utf8"),
        onNone: () => Buffer.from(file.session_secret, "base64")
      })
    }

    /** version(1) | iv(12) | tag(16) | ciphertext */
    const encrypt = (plaintext: Redacted.Redacted<string> | string): Buffer => {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv("aes-256-gcm", encryptionKey, iv)
      const value = typeof plaintext === "string" ? plaintext : Redacted.value(plaintext)
      const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()])
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body])
    }

    /** A blob that fails authentication is a defect: it means a wrong key or tampering. */
    const decrypt = (blob: Uint8Array): Effect.Effect<Redacted.Redacted<string>> =>
      Effect.try({
        try: () => {
          const buf = Buffer.from(blob)
          if (buf[0] !== VERSION) throw new Error("unknown ciphertext version")
          const iv = buf.subarray(1, 1 + IV_BYTES)
          const tag = buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES)
          const decipher = createDecipheriv("aes-256-gcm", encryptionKey, iv)
          decipher.setAuthTag(tag)
          const plain = Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()])
          return Redacted.make(plain.toString("utf8"))
        },
        catch: () => new Error("a stored secret could not be decrypted (wrong ENCRYPTION_KEY?)")
      }).pipe(Effect.orDie)

    const sign = (payload: string): string => createHmac("sha256", sessionKey).update(payload).digest("base64url")

    const verify = (payload: string, signature: string): boolean => {
      const expected = Buffer.from(sign(payload))
      const given = Buffer.from(signature)
      return expected.length === given.length && timingSafeEqual(expected, given)
    }

    return { encrypt, decrypt, sign, verify } as const
  })
}) {}
