/**
 * What to do about the Meta error codes developers meet most, sent as `hint` next to the
 * upstream error fields (the send 502, the other routes' 502 `upstream_error`, and the
 * `error` of `message.failed`). Keyed by Meta's `error.code`.
 */
export const UPSTREAM_HINTS: Readonly<Record<number, string>> = {
  131047:
    "More than 24 hours have passed since the recipient last wrote to you, so free-form messages are refused; send an approved template (type: template) to reopen the conversation.",
  131026:
    "The recipient cannot receive this message: the number may not be on WhatsApp, may not have accepted the latest terms, or may run an old app version. Check the number (country code, no leading zeros).",
  132001:
    "The template does not exist in this language for the channel's WhatsApp account, or is not approved yet: check its name and language_code (platform templates list) or sync the channel's templates.",
  132015: "The template is paused because of low quality ratings: edit it or send another approved template.",
  132016: "The template is disabled after repeated low quality ratings: create a new template.",
  132000:
    "The number of template variables sent does not match the template's placeholders: send one value per {{n}} of the header and body.",
  132012:
    "A template variable does not match the format the template was created with (text, currency, date_time, media): check each parameter's type.",
  130429: "The channel's phone number sent faster than its throughput allows: slow down and retry with backoff.",
  131056:
    "Too many messages to the same recipient in a short time: wait before sending to this recipient again (other recipients are not affected).",
  80007: "The WhatsApp Business Account reached its rate limit: retry later with backoff.",
  190: "The channel's access token has expired or was revoked: reconnect the channel (dashboard: channels, connect).",
  131048:
    "Meta restricted this number for spam: too many of its messages were blocked or reported. Send only to users who opted in, and check the number's quality rating in WhatsApp Manager."
}

/** The `hint` for a Meta error code, or undefined when there is none. */
export const upstreamHint = (metaCode: number | null | undefined): string | undefined =>
  metaCode === null || metaCode === undefined ? undefined : UPSTREAM_HINTS[metaCode]
