import { ValidationFailed } from "@platform/shared"

/*
 * The upstream's length limits, checked before the call so that an over-long
 * message is a 422 at its field rather than a 502 and a failed record (the
 * sandbox takes any length; Meta does not): WhatsApp's text.body is at most 4096
 * characters and a media caption 1024; Instagram takes text of fewer than 1000
 * characters (and no captions, which are dropped there).
 */
export const TEXT_MAX_CHARS = { chat: 4096, social: 999 } as const
export const CAPTION_MAX_CHARS = 1024

/** Whether `s` has more than `max` characters (code points, as SPEC counts them). */
export const longerThan = (s: string, max: number) => {
  if (s.length <= max) return false
  let chars = 0
  for (const _ of s) if (++chars > max) return true
  return false
}

/** 422 at `["body", ...loc]`: more than `max` characters. */
export const tooLong = (loc: ReadonlyArray<string>, max: number, input: string): ValidationFailed =>
  new ValidationFailed({
    detail: [{ loc: ["body", ...loc], msg: `must be at most ${max} characters`, type: "value_error", input, ctx: { max_length: max } }]
  })
