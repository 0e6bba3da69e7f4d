import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * CSRF defence for cookie-authenticated mutations (see README "Authentication").
 * Browsers send `Sec-Fetch-Site` (and `Origin`) on every cross-origin POST, PATCH and
 * DELETE; when present they must say same-origin. A request carrying neither header
 * is not from a browser page (curl, the CLI, the SDK) and cannot ride a victim's
 * cookie, so it passes. SameSite=Lax on the cookie is the second layer.
 */
export const isSameOriginRequest = (request: HttpServerRequest.HttpServerRequest, publicUrl: string): boolean => {
  if (SAFE_METHODS.has(request.method)) return true
  const site = request.headers["sec-fetch-site"]
  if (site !== undefined) return site === "same-origin"
  const origin = request.headers["origin"]
  if (origin === undefined) return true
  if (origin === "null") return false
  try {
    const url = new URL(origin)
    return url.host === request.headers["host"] || url.origin === new URL(publicUrl).origin
  } catch {
    return false
  }
}
