import { Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import { verifyHubSignature } from "../upstream/hub-signature.js"

/**
 * Meta's subscription handshake: `hub.mode=subscribe` with our verify token is
 * answered with `hub.challenge` verbatim; anything else gets nothing.
 */
export const handshakeChallenge = (
  params: URLSearchParams,
  verifyToken: Redacted.Redacted<string>
): string | undefined => {
  const mode = params.get("hub.mode")
  const token = params.get("hub.verify_token")
  const challenge = params.get("hub.challenge")
  if (mode !== "subscribe" || token === null || challenge === null) return undefined
  const expected = Buffer.from(Redacted.value(verifyToken), "utf8")
  const given = Buffer.from(token, "utf8")
  return expected.length === given.length && timingSafeEqual(expected, given) ? challenge : undefined
}

/**
 * `X-Hub-Signature-256` over the exact bytes received (Meta signs its escaped
 * ASCII form: decoding and re-encoding first would break it), constant-time.
 */
export const verifyInboundSignature = (
  appSecret: Redacted.Redacted<string>,
  body: Uint8Array,
  header: string | undefined
): boolean => verifyHubSignature(Redacted.value(appSecret), body, header)
