import { describe, expect, it } from "vitest"
import { routeTemplate, UNMATCHED_ROUTE } from "../../src/telemetry/route-templates.js"

describe("route templates of the HTTP metrics", () => {
  it.each([
    ["POST", "/platform/v1/messages", "/platform/v1/messages"],
    ["POST", "/platform/v1/messages/mark-read", "/platform/v1/messages/mark-read"],
    ["GET", "/platform/v1/messages/812", "/platform/v1/messages/{message_id}"],
    ["GET", "/platform/v1/messages/mark-read", "/platform/v1/messages/{message_id}"],
    ["GET", "/platform/v1/messages?channel_id=3&limit=5", "/platform/v1/messages"],
    ["POST", "/platform/v1/webhooks/subscriptions/41/rotate-secret", "/platform/v1/webhooks/subscriptions/{sub_id}/rotate-secret"],
    ["GET", "/platform/v1/media-downloads/tok_abc.def", "/platform/v1/media-downloads/{token}"],
    ["GET", "/platform/v1/media/17/url", "/platform/v1/media/{media_id}/url"],
    ["GET", "/platform/v1/media/download/url", "/platform/v1/media/{media_id}/url"],
    ["PATCH", "/platform/dashboard/channels/9/webhook", "/platform/dashboard/channels/{id}/webhook"],
    ["POST", "/webhook/incoming", "/webhook/incoming"],
    ["GET", "/webhook/incoming?hub.mode=subscribe&hub.challenge=1", "/webhook/incoming"],
    ["POST", "/__sandbox/graph/v23.0/1234/messages", "/__sandbox/graph/{path}"],
    ["HEAD", "/healthz", "/healthz"],
    ["GET", "/metrics", "/metrics"],
    ["GET", "/platform/v1/nope/12", UNMATCHED_ROUTE],
    ["DELETE", "/platform/v1/messages", UNMATCHED_ROUTE],
    ["GET", "/platform/v1/messages/", UNMATCHED_ROUTE],
    ["GET", "/wp-login.php", UNMATCHED_ROUTE]
  ])("%s %s counts as %s", (method, url, template) => {
    expect(routeTemplate(method, url)).toBe(template)
  })
})
