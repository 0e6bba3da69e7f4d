import { UPSTREAM_HINTS } from "@platform/shared"
import { describe, expect, it } from "@effect/vitest"
import { failedStatusEnvelope } from "../../src/outbox/statuses.js"
import { toSendErrorBody, UpstreamError } from "../../src/upstream/errors.js"

describe("failedStatusEnvelope (message.failed data.error)", () => {
  it.each([
    [131026, "Message undeliverable", "undeliverable"],
    [131047, "Re-engagement message", "reengagement_required"],
    [131056, "(Business Account, Consumer Account) pair rate limit hit", "pair_rate_limited"],
    [131053, "Media upload error", "media_error"],
    [999999, "Something new", "unknown"]
  ])("error code %i (%s) gives `error` %s, as a send's 502 body does", (code, title, kind) => {
    const envelope = failedStatusEnvelope([{ code, title, message: title, error_data: { details: `details of ${code}` } }])
    expect(envelope).toEqual({
      error: kind,
      meta_code: code,
      meta_subcode: null,
      meta_title: title,
      message: `details of ${code}`,
      fbtrace_id: null,
      ...(code in UPSTREAM_HINTS ? { hint: UPSTREAM_HINTS[code] } : {})
    })
    const sent = toSendErrorBody(
      new UpstreamError({
        kind: kind as UpstreamError["kind"],
        operation: "messages.send",
        meta_code: code,
        meta_subcode: null,
        meta_title: title,
        message: title,
        details: null,
        fbtrace_id: null,
        http_status: 400
      })
    )
    expect(envelope.error).toBe(sent.error)
    expect(envelope.hint).toBe(sent.hint)
  })

  it("a failed status without errors is `unknown` with a message saying so", () => {
    expect(failedStatusEnvelope(undefined)).toEqual({
      error: "unknown",
      meta_code: null,
      meta_subcode: null,
      meta_title: null,
      message: "The upstream reported the message as failed",
      fbtrace_id: null
    })
  })
})
