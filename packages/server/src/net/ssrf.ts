/**
 * The SSRF guard (DESIGN §4), shared by webhook delivery, raw forward, the
 * media-from-URL fetch and the validation of subscription / raw-forward URLs.
 *
 * `checkUrl` parses a URL with the WHATWG parser (which already normalises
 * decimal, hex, octal, shortened and mixed IPv4 notations, percent-encoded and
 * full-width digits, and IPv6 brackets), refuses non-HTTPS schemes, credentials
 * and internal hostnames, resolves the hostname ONCE and checks EVERY resolved
 * address. The result names the address to connect to (`pinned`): the outbound
 * client (`pinned-pools.ts`) connects to exactly that address, so a second DNS
 * answer (DNS rebinding) can never steer the connection to another host.
 *
 * Which addresses are refused is address-rules.ts; how names are resolved,
 * dns-resolver.ts.
 *
 * `allowLocal` (`UNSAFE_ALLOW_LOCAL_TARGETS`, refused in production by
 * AppConfig) admits http:// and loopback addresses / `localhost` only; cloud
 * metadata addresses stay refused even then.
 */
import { Effect, Option, Schema } from "effect"
import ipaddr from "ipaddr.js"
import { addressRejection, canonicalAddress } from "./address-rules.js"
import { defaultResolver, DnsResolver, type Resolver } from "./dns-resolver.js"

/** Which rule refused the target; `reason` is the human sentence. */
export const SsrfRejectionKind = Schema.Literal(
  "invalid_url",
  "scheme",
  "userinfo",
  "hostname",
  "address",
  "unresolvable"
)
export type SsrfRejectionKind = typeof SsrfRejectionKind.Type

/**
 * The target URL is refused. `reason` is a human sentence fit for a 422 body or
 * a delivery record, e.g. "target resolves to a private address (10.0.0.5)".
 */
export class SsrfRejected extends Schema.TaggedError<SsrfRejected>()("SsrfRejected", {
  url: Schema.String,
  kind: SsrfRejectionKind,
  reason: Schema.String,
  /** True when local targets (`allowLocal`) would have admitted it: http://, loopback, a single-label name. */
  local: Schema.optional(Schema.Boolean)
}) {
  override get message(): string {
    return this.reason
  }
}

/** A URL that passed the guard, with the address the connection must use. */
export interface CheckedTarget {
  readonly url: URL
  /** The hostname without brackets or trailing dot (an IP literal or a DNS name). */
  readonly hostname: string
  /** Every address the hostname resolved to (all of them passed the check). */
  readonly addresses: ReadonlyArray<string>
  /** The address to connect to (one of `addresses`; IPv4 preferred). */
  readonly pinned: string
  readonly family: 4 | 6
}

export interface CheckOptions {
  /** `AppConfig.unsafeAllowLocalTargets`: http:// and loopback allowed (tests, local dev). */
  readonly allowLocal: boolean
  /** Overrides the `DnsResolver` service (and the node:dns default). */
  readonly resolver?: Resolver
}

const INTERNAL_SUFFIXES = [".internal", ".local", ".localdomain", ".home.arpa", ".intranet", ".corp", ".lan"]

/** Why a DNS name (lower case, no trailing dot) is refused before any lookup; undefined when it is not. */
const hostnameRejection = (name: string, allowLocal: boolean): string | undefined => {
  if (name === "localhost" || name.endsWith(".localhost")) {
    return allowLocal ? undefined : `target hostname ${name} is a loopback name`
  }
  const suffix = INTERNAL_SUFFIXES.find((s) => name.endsWith(s))
  if (suffix !== undefined) return `target hostname ${name} is an internal name (${suffix})`
  if (!name.includes(".") && !allowLocal) return `target hostname ${name} is a single-label (intranet) name`
  return undefined
}

/** Whether local targets would admit this host (before any DNS lookup): loopback, `localhost`, a single-label name, a public host. */
const admittedLocally = (rawHost: string) => {
  const literal = rawHost.startsWith("[") && rawHost.endsWith("]") ? rawHost.slice(1, -1) : rawHost
  if (ipaddr.IPv4.isValidFourPartDecimal(literal) || ipaddr.isValid(literal)) {
    return addressRejection(literal, { allowLocal: true }) === undefined
  }
  return hostnameRejection(literal.toLowerCase().replace(/\.$/, ""), true) === undefined
}

const reject = (url: string, kind: SsrfRejectionKind, reason: string, local = false) =>
  Effect.fail(new SsrfRejected(local ? { url, kind, reason, local } : { url, kind, reason }))

/** What to do instead, for a developer whose receiver runs on their own machine. */
export const LOCAL_TARGET_ADVICE = "For a receiver on your machine, run `platform listen --forward-to <its URL>` " +
  "(it forwards the event stream, signed like a delivery) or give it a public https URL (a tunnel); " +
  "http and loopback targets are accepted only with the sandbox upstream outside production"

/** The 422 sentence for a target a developer gave: the guard's reason, and what to do instead when it is a local target. */
export const refusalText = (e: SsrfRejected) => e.local === true ? `${e.reason}. ${LOCAL_TARGET_ADVICE}` : e.reason

const familyOf = (address: string): 4 | 6 => address.includes(":") ? 6 : 4

/**
 * Checks a target URL against DESIGN §4 and resolves it once. Fails with
 * `SsrfRejected` (a human `reason`) when the URL, its hostname or ANY address it
 * resolves to is refused. The result's `pinned` address is the one to connect to.
 */
export const checkUrl = (url: string, options: CheckOptions): Effect.Effect<CheckedTarget, SsrfRejected> =>
  Effect.gen(function*() {
    const allowLocal = options.allowLocal
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return yield* reject(url, "invalid_url", "target URL is not a valid absolute URL")
    }
    // The URL parser drops these silently (surrounding spaces, tabs and line breaks anywhere), so the
    // URL called would not be the text that was stored and shown: a paste error, not a target.
    if (/[\u0000-\u0020\u007f]/.test(url)) {
      return yield* reject(url, "invalid_url", "target URL must not contain spaces, tabs, line breaks or control characters")
    }
    if (parsed.protocol !== "https:") {
      if (!(parsed.protocol === "http:" && allowLocal)) {
        return yield* reject(
          url,
          "scheme",
          parsed.protocol === "http:"
            ? "target URL must use https (http is not allowed)"
            : `target URL must use https (${parsed.protocol.replace(/:$/, "")} is not allowed)`,
          parsed.protocol === "http:" && admittedLocally(parsed.hostname)
        )
      }
    }
    if (parsed.port === "0") return yield* reject(url, "invalid_url", "target URL has port 0, which no request can reach")
    if (parsed.username !== "" || parsed.password !== "") {
      return yield* reject(url, "userinfo", "target URL must not contain credentials (user:password@)")
    }

    const rawHost = parsed.hostname
    if (rawHost === "") return yield* reject(url, "invalid_url", "target URL has no host")

    // IP literal: WHATWG URL has already turned every IPv4 notation into a dotted
    // quad and wraps IPv6 in brackets (zone ids are invalid in URLs).
    const bracketed = rawHost.startsWith("[") && rawHost.endsWith("]")
    const literal = bracketed ? rawHost.slice(1, -1) : rawHost
    if (bracketed || ipaddr.IPv4.isValidFourPartDecimal(literal) || ipaddr.isValid(literal)) {
      const rejection = addressRejection(literal, { allowLocal })
      if (rejection !== undefined) {
        const local = addressRejection(literal, { allowLocal: true }) === undefined
        return yield* reject(url, "address", `target is ${rejection} (${canonicalAddress(literal)})`, local)
      }
      const pinned = canonicalAddress(literal)
      return { url: parsed, hostname: pinned, addresses: [pinned], pinned, family: familyOf(pinned) }
    }

    const name = rawHost.toLowerCase().replace(/\.$/, "")
    const nameRejection = hostnameRejection(name, allowLocal)
    if (nameRejection !== undefined) {
      return yield* reject(url, "hostname", nameRejection, hostnameRejection(name, true) === undefined)
    }

    const resolver = options.resolver ??
      Option.getOrElse(yield* Effect.serviceOption(DnsResolver), () => defaultResolver)
    const resolved = yield* resolver.resolve(name).pipe(
      Effect.catchAll((error) =>
        reject(url, "unresolvable", `target hostname ${name} could not be resolved (${error.code})`)
      )
    )
    const addresses: Array<string> = []
    for (const address of resolved) {
      const rejection = addressRejection(address, { allowLocal })
      if (rejection !== undefined) {
        const local = addressRejection(address, { allowLocal: true }) === undefined
        return yield* reject(url, "address", `target resolves to ${rejection} (${canonicalAddress(address)})`, local)
      }
      const text = canonicalAddress(address)
      if (!addresses.includes(text)) addresses.push(text)
    }
    if (addresses.length === 0) {
      return yield* reject(url, "unresolvable", `target hostname ${name} resolved to no address`)
    }
    const pinned = addresses.find((address) => familyOf(address) === 4) ?? addresses[0]!
    return { url: parsed, hostname: name, addresses, pinned, family: familyOf(pinned) }
  })
