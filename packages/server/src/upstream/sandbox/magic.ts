/**
 * Recipients (WhatsApp `to` or Instagram `recipient.id`) that make the sandbox
 * misbehave on purpose. Documented in README.md beside this file.
 */
export const SANDBOX_MAGIC_RECIPIENTS = {
  throughputLimited: "15550130429",
  accountRateLimited: "15550080007",
  pairRateLimited: "15550131056",
  reengagementRequired: "15550131047",
  templateMissing: "15550132001",
  templateParamMismatch: "15550132000",
  templateFormatMismatch: "15550132012",
  authExpired: "15550000190",
  invalidParameter: "15550000100",
  /** Accepted, then a `sent` and a `failed` status callback carrying errors[131026]. */
  failedDelivery: "15550131026",
  /** Accepted, gets `sent` and `delivered` but never `read`. */
  neverRead: "15550000404"
} as const

/** A token the sandbox treats as expired (190/463) on every call. */
export const SANDBOX_EXPIRED_TOKEN = "sandbox-expired-token"

/**
 * Codes that make the code exchange misbehave: `expired` is exchanged for
 * `SANDBOX_EXPIRED_TOKEN` (so the connect fails at the next call, 190/463), `invalid`
 * is refused the way Meta refuses a malformed code (100/36007).
 */
export const SANDBOX_MAGIC_CODES = {
  expired: "sandbox-expired-code",
  invalid: "sandbox-invalid-code"
} as const

export interface SandboxErrorCase {
  readonly recipient: string
  readonly http_status: number
  readonly code: number
  readonly subcode?: number
  readonly type: string
  readonly message: string
  readonly title: string
  readonly details: string
}

/**
 * The synchronous failures, one per classified code, with the status, message and
 * details Meta documents for them (WhatsApp Cloud API "Error codes").
 */
export const SANDBOX_ERROR_CASES: ReadonlyArray<SandboxErrorCase> = [
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.throughputLimited,
    http_status: 429,
    code: 130429,
    type: "OAuthException",
    message: "(#130429) Rate limit hit",
    title: "Rate limit hit",
    details: "Cloud API message throughput has been reached."
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.accountRateLimited,
    http_status: 400,
    code: 80007,
    type: "OAuthException",
    message: "(#80007) Rate limit issues",
    title: "Rate limit issues",
    details: "The WhatsApp Business Account has reached its rate limit."
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.pairRateLimited,
    http_status: 400,
    code: 131056,
    type: "OAuthException",
    message: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
    title: "(Business Account, Consumer Account) pair rate limit hit",
    details:
      "Too many messages sent from the sender phone number to the same recipient phone number in a short period of time."
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.reengagementRequired,
    http_status: 400,
    code: 131047,
    type: "OAuthException",
    message: "(#131047) Re-engagement message",
    title: "Re-engagement message",
    details:
      "Message failed to send because more than 24 hours have passed since the customer last replied to this number."
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.templateMissing,
    http_status: 404,
    code: 132001,
    type: "OAuthException",
    message: "(#132001) Template name does not exist in the translation",
    title: "Template does not exist",
    details: "template name does not exist in the translation"
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.templateParamMismatch,
    http_status: 400,
    code: 132000,
    type: "OAuthException",
    message: "(#132000) Number of parameters does not match the expected number of params",
    title: "Template Param Count Mismatch",
    details: "body: number of localizable_params (0) does not match the expected number of params (1)"
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.templateFormatMismatch,
    http_status: 400,
    code: 132012,
    type: "OAuthException",
    message: "(#132012) Parameter format does not match format in the created template",
    title: "Parameter format does not match format in the created template",
    details: "header: Format mismatch, expected IMAGE, received UNKNOWN"
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.authExpired,
    http_status: 401,
    code: 190,
    subcode: 463,
    type: "OAuthException",
    message: "Error validating access token: Session has expired on Tuesday, 01-Jul-25 10:00:00 PDT.",
    title: "Access token has expired",
    details: "The access token has expired."
  },
  {
    recipient: SANDBOX_MAGIC_RECIPIENTS.invalidParameter,
    http_status: 400,
    code: 100,
    type: "OAuthException",
    message: "(#100) Invalid parameter",
    title: "Invalid parameter",
    details: "Invalid parameter"
  }
]

/** Meta's webhook error object for the `failedDelivery` recipient's `failed` status. */
export const SANDBOX_FAILED_STATUS_ERROR = {
  code: 131026,
  title: "Message undeliverable",
  message: "Message undeliverable",
  error_data: { details: "Message failed to send because the recipient's phone number is not a WhatsApp number." },
  href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/"
} as const
