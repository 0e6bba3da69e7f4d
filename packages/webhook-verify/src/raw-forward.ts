import { assertRawBody, assertSecret, failure, type RawBody, type VerifyFailure } from "./errors.js"
import { verifySignature, type SignatureFailureReason } from "./verify.js"

/** Why a raw-forward check failed: a signature problem, an unsigned delivery, or a signed one with no secret to check it. */
export type RawForwardFailureReason = SignatureFailureReason | "unsigned" | "secret_required"

/** A raw-forward delivery that passed: `signed` is false only when you passed `null` (the channel has no webhook_secret) and the delivery carries no signature. */
export interface RawForwardVerified {
  /** Always true on success. */
  readonly ok: true
  /** Whether a signature was present and matched. */
  readonly signed: boolean
}

/** The result of `verifyRawForward`. */
export type RawForwardResult = RawForwardVerified | VerifyFailure<RawForwardFailureReason>

/** Verifies a raw-forward delivery (SPEC §6.5): `X-Platform-Signature` over the exact upstream JSON bytes with the channel's webhook_secret, or `null` for a channel without one. */
export async function verifyRawForward(
  secret: string | null,
  rawBody: RawBody,
  signatureHeader: string | null | undefined
): Promise<RawForwardResult> {
  assertRawBody(rawBody, "verifyRawForward")
  const absent = signatureHeader === undefined || signatureHeader === null || signatureHeader === ""
  if (secret === null) {
    return absent
      ? { ok: true, signed: false }
      : failure(
          "secret_required",
          "the delivery is signed but no secret was given: the channel now has a webhook_secret, pass it instead of null"
        )
  }
  assertSecret(secret, "verifyRawForward")
  if (absent) {
    return failure(
      "unsigned",
      "the delivery has no X-Platform-Signature: the channel has no webhook_secret (set one, or pass null to accept unsigned deliveries)"
    )
  }
  const result = await verifySignature(secret, rawBody, signatureHeader)
  return result.ok ? { ok: true, signed: true } : result
}
