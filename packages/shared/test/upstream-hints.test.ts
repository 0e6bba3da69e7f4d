import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { SendUpstreamError, UpstreamErrorEnvelope, upstreamHint, UpstreamFailure } from "../src/index.js"

describe("upstream hints", () => {
  it.each([
    [131047, "24 hours"],
    [131026, "not be on WhatsApp"],
    [132001, "does not exist"],
    [132015, "paused"],
    [132016, "disabled"],
    [132000, "number of template variables"],
    [132012, "format"],
    [130429, "throughput"],
    [131056, "same recipient"],
    [80007, "rate limit"],
    [190, "reconnect the channel"],
    [131048, "spam"]
  ])("Meta code %i has a hint about %s", (code, about) => {
    expect(upstreamHint(code)?.toLowerCase()).toContain(about.toLowerCase())
  })

  it("other codes and no code have none", () => {
    expect(upstreamHint(100)).toBeUndefined()
    expect(upstreamHint(null)).toBeUndefined()
  })

  it("hint is an added, optional field: SPEC's 502 body decodes with and without it", () => {
    const spec = { error: "reengagement_required", meta_code: 131047, meta_subcode: null, meta_title: "Re-engagement message", message: "m", fbtrace_id: null }
    expect(Schema.decodeUnknownSync(UpstreamErrorEnvelope)(spec)).toEqual(spec)
    const hinted = { ...spec, hint: upstreamHint(131047)! }
    expect(Schema.decodeUnknownSync(UpstreamErrorEnvelope)(hinted)).toEqual(hinted)
    expect(Object.keys(SendUpstreamError.fields)).toEqual(["_tag", ...Object.keys(spec), "hint"])
    expect(Object.keys(UpstreamFailure.fields)).toContain("hint")
  })
})
