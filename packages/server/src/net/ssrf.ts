/**
 * The SSRF guard (DESIGN §4), shared by webhook delivery, raw forward, the
 * media-from-URL fetch and the validation of subscription / raw-forward URLs.
 *
 * `checkUrl` parses a URL with the WHATWG parser (which already normalises
 * decimal, hex, octal, shortened and mixed IPv4 notations, percent-encoded and
 * full-width digits, and IPv6 brackets), refuses non-HTTPS schemes, credentials
 * and internal hostnames, resolves the hostname ONCE and checks EVERY resolved
 * address. The result names the address to connect to (`pinned`): the outbound
 * client (`safe-http.ts`) connects to exactly that address, so a second DNS
 * answer (DNS rebinding) can never steer the connection to another host.
 *
 * Address rules use ipaddr.js (`range()` as the catch-all: only `unicast` is
 * accepted) plus explicit CIDR lists that name what was hit; IPv4 embedded in
 * IPv6 (mapped, IPv4-translated, NAT64, 6to4, IPv4-compatible) is judged by the
 * embedded IPv4, Teredo is refused outright.
 *
 * `allowLocal` (`UNSAFE_ALLOW_LOCAL_TARGETS`, refused in production by
 * AppConfig) admits http:// and loopback addresses / `localhost` only; cloud
 * metadata addresses stay refused even then.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import ipaddr from "ipaddr.js"
import { lookup } from "node:dns"

// ---------------------------------------------------------------------------
// Errors and results
// ---------------------------------------------------------------------------

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
  reason: Schema.String
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

// ---------------------------------------------------------------------------
// DNS resolution (injectable)
// ---------------------------------------------------------------------------

export class DnsLookupFailed extends Schema.TaggedError<DnsLookupFailed>()("DnsLookupFailed", {
  hostname: Schema.String,
  code: Schema.String
}) {}

/** Resolves a hostname to every address it has (A and AAAA). */
export interface Resolver {
  readonly resolve: (hostname: string) => Effect.Effect<ReadonlyArray<string>, DnsLookupFailed>
}

export interface NodeResolverOptions {
  /** Give up waiting for getaddrinfo after this long. Default 5 s. */
  readonly timeoutMs?: number
  /**
   * Keep successful answers this long (0 disables). Default 5 s: the delivery
   * engine checks the same receiver thousands of times per second and
   * getaddrinfo runs on libuv's small thread pool. Every cached answer is still
   * checked on every `checkUrl`.
   */
  readonly cacheTtlMs?: number
  readonly cacheMaxEntries?: number
}

/** node:dns `lookup(hostname, { all: true })`, with a timeout and a short positive cache. */
export const makeNodeResolver = (options: NodeResolverOptions = {}): Resolver => {
  const timeoutMs = options.timeoutMs ?? 5_000
  const ttl = options.cacheTtlMs ?? 5_000
  const maxEntries = options.cacheMaxEntries ?? 1_024
  const cache = new Map<string, { readonly addresses: ReadonlyArray<string>; readonly expires: number }>()

  const lookupAll = (hostname: string) =>
    Effect.async<ReadonlyArray<string>, DnsLookupFailed>((resume) => {
      lookup(hostname, { all: true, verbatim: true }, (error, records) => {
        if (error) {
          resume(Effect.fail(new DnsLookupFailed({ hostname, code: error.code ?? "EAI_FAIL" })))
        } else if (records.length === 0) {
          resume(Effect.fail(new DnsLookupFailed({ hostname, code: "ENODATA" })))
        } else {
          resume(Effect.succeed(records.map((record) => record.address)))
        }
      })
    }).pipe(
      Effect.timeoutFail({
        duration: timeoutMs,
        onTimeout: () => new DnsLookupFailed({ hostname, code: "ETIMEOUT" })
      })
    )

  return {
    resolve: (hostname) =>
      Effect.suspend(() => {
        if (ttl <= 0) return lookupAll(hostname)
        const hit = cache.get(hostname)
        if (hit !== undefined && hit.expires > Date.now()) return Effect.succeed(hit.addresses)
        return lookupAll(hostname).pipe(
          Effect.tap((addresses) =>
            Effect.sync(() => {
              cache.delete(hostname)
              if (cache.size >= maxEntries) {
                const oldest = cache.keys().next()
                if (!oldest.done) cache.delete(oldest.value)
              }
              cache.set(hostname, { addresses, expires: Date.now() + ttl })
            })
          )
        )
      })
  }
}

/** For tests: names resolve to the given addresses, anything else is NXDOMAIN. */
export const staticResolver = (table: Readonly<Record<string, ReadonlyArray<string>>>): Resolver => ({
  resolve: (hostname) => {
    const key = hostname.toLowerCase()
    const addresses = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined
    return addresses !== undefined && addresses.length > 0
      ? Effect.succeed(addresses)
      : Effect.fail(new DnsLookupFailed({ hostname, code: "ENOTFOUND" }))
  }
})

const defaultResolver = makeNodeResolver()

/**
 * The resolver `checkUrl` uses when none is passed in its options. Optional in
 * the context: without it node:dns is used, so `checkUrl` needs no layer.
 */
export class DnsResolver extends Context.Tag("@platform/server/delivery/DnsResolver")<DnsResolver, Resolver>() {
  static readonly node: Layer.Layer<DnsResolver> = Layer.succeed(DnsResolver, defaultResolver)
  static readonly layerStatic = (table: Readonly<Record<string, ReadonlyArray<string>>>): Layer.Layer<DnsResolver> =>
    Layer.succeed(DnsResolver, staticResolver(table))
}

// ---------------------------------------------------------------------------
// Address rules (pure)
// ---------------------------------------------------------------------------

type Cidr = readonly [string, string] // [cidr, what it is]

/** Refused even with allowLocal. */
const METADATA: ReadonlyArray<Cidr> = [
  ["169.254.169.254/32", "cloud metadata"], // AWS, GCP, Azure, OpenStack, DigitalOcean
  ["169.254.170.2/32", "cloud metadata"], // AWS ECS task metadata
  ["100.100.100.200/32", "cloud metadata"], // Alibaba Cloud
  ["168.63.129.16/32", "cloud metadata"], // Azure WireServer (a public-looking address)
  ["fd00:ec2::254/128", "cloud metadata"], // AWS IMDS over IPv6
  ["fd00:ec2::23/128", "cloud metadata"] // AWS DNS over IPv6
]

/** Allowed with allowLocal only. */
const LOOPBACK: ReadonlyArray<Cidr> = [
  ["127.0.0.0/8", "loopback"],
  ["::1/128", "loopback"]
]

const BLOCKED_V4: ReadonlyArray<Cidr> = [
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade NAT"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignment"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "6to4 relay anycast"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"]
]

const BLOCKED_V6: ReadonlyArray<Cidr> = [
  ["::/128", "unspecified"],
  ["fc00::/7", "unique local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local"],
  ["ff00::/8", "multicast"],
  ["2001:db8::/32", "documentation"],
  ["100::/64", "discard-only"]
]

const LOCAL_USE_NAT64 = ipaddr.parseCIDR("64:ff9b:1::/48")

const RANGE_LABELS: Readonly<Record<string, string>> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  reserved: "reserved",
  uniqueLocal: "unique local",
  benchmarking: "benchmarking",
  teredo: "Teredo tunnel"
}

const parseCidrs = (list: ReadonlyArray<Cidr>) =>
  list.map(([cidr, label]) => ({ range: ipaddr.parseCIDR(cidr), label }))

const METADATA_RANGES = parseCidrs(METADATA)
const LOOPBACK_RANGES = parseCidrs(LOOPBACK)
const BLOCKED_V4_RANGES = parseCidrs(BLOCKED_V4)
const BLOCKED_V6_RANGES = parseCidrs(BLOCKED_V6)

type Ranges = ReturnType<typeof parseCidrs>

const firstMatch = (address: ipaddr.IPv4 | ipaddr.IPv6, ranges: Ranges): string | undefined => {
  for (const { label, range } of ranges) {
    if (range[0].kind() === address.kind() && address.match(range)) return label
  }
  return undefined
}

const v4FromParts = (high: number, low: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])

/** The IPv4 address an IPv6 address carries, and how it carries it. */
const embeddedIPv4 = (address: ipaddr.IPv6): { readonly v4: ipaddr.IPv4; readonly via: string } | undefined => {
  const p = address.parts
  switch (address.range()) {
    case "ipv4Mapped":
      return { v4: address.toIPv4Address(), via: "IPv4-mapped" }
    case "rfc6145":
      return { v4: v4FromParts(p[6]!, p[7]!), via: "IPv4-translated" }
    case "rfc6052": // 64:ff9b::/96 here, the local-use /48 is refused before
      return { v4: v4FromParts(p[6]!, p[7]!), via: "NAT64" }
    case "6to4":
      return { v4: v4FromParts(p[1]!, p[2]!), via: "6to4" }
    default:
      // IPv4-compatible ::a.b.c.d (deprecated, ::/96); :: and ::1 have their own rules.
      if (p.slice(0, 6).every((part) => part === 0) && (p[6] !== 0 || p[7]! > 1)) {
        return { v4: v4FromParts(p[6]!, p[7]!), via: "IPv4-compatible" }
      }
      return undefined
  }
}

const article = (label: string) => /^([aeio]|u(?!ni))/i.test(label) ? `an ${label}` : `a ${label}`

/** "private" → "a private address"; labels that already say "address" are kept. */
const addressPhrase = (label: string) => article(/\baddress\b/.test(label) ? label : `${label} address`)

/** Why `address` may not be connected to, as a label ("private"); undefined when it may. */
const rejectIPv4 = (address: ipaddr.IPv4, allowLocal: boolean): string | undefined => {
  const metadata = firstMatch(address, METADATA_RANGES)
  if (metadata !== undefined) return metadata
  const loopback = firstMatch(address, LOOPBACK_RANGES)
  if (loopback !== undefined) return allowLocal ? undefined : loopback
  const blocked = firstMatch(address, BLOCKED_V4_RANGES)
  if (blocked !== undefined) return blocked
  const range = address.range()
  return range === "unicast" ? undefined : `special-purpose ${RANGE_LABELS[range] ?? range}`
}

const rejectIPv6 = (address: ipaddr.IPv6, allowLocal: boolean): string | undefined => {
  const metadata = firstMatch(address, METADATA_RANGES)
  if (metadata !== undefined) return metadata
  const loopback = firstMatch(address, LOOPBACK_RANGES)
  if (loopback !== undefined) return allowLocal ? undefined : loopback
  if (address.range() === "teredo") return "Teredo tunnel"
  if (address.match(LOCAL_USE_NAT64)) return "local-use NAT64" // RFC 8215: embedding varies, refused outright
  const embedded = embeddedIPv4(address)
  if (embedded !== undefined) {
    const inner = rejectIPv4(embedded.v4, allowLocal)
    return inner === undefined
      ? undefined
      : `${embedded.via} IPv6 address embedding ${addressPhrase(inner)} ${embedded.v4.toString()}`
  }
  const blocked = firstMatch(address, BLOCKED_V6_RANGES)
  if (blocked !== undefined) return blocked
  const range = address.range()
  return range === "unicast" ? undefined : `special-purpose ${RANGE_LABELS[range] ?? range}`
}

/**
 * Why an IP address (any notation ipaddr.js parses, IPv6 with or without
 * brackets or zone id) may not be connected to, as a phrase such as
 * "a private address" or "a cloud metadata address"; `undefined` when it is an
 * acceptable public unicast address. Anything that is not an IP address is refused.
 */
export const addressRejection = (address: string, options: { readonly allowLocal: boolean }): string | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (!ipaddr.isValid(bare)) return "an invalid address"
  const parsed = ipaddr.parse(bare)
  const label = parsed.kind() === "ipv4"
    ? rejectIPv4(parsed as ipaddr.IPv4, options.allowLocal)
    : rejectIPv6(parsed as ipaddr.IPv6, options.allowLocal)
  return label === undefined ? undefined : addressPhrase(label)
}

// ---------------------------------------------------------------------------
// Hostname rules (pure)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// checkUrl
// ---------------------------------------------------------------------------

const reject = (url: string, kind: SsrfRejectionKind, reason: string) =>
  Effect.fail(new SsrfRejected({ url, kind, reason }))

const familyOf = (address: string): 4 | 6 => address.includes(":") ? 6 : 4

/** Strips brackets and an IPv6 zone id and canonicalises the address text. */
const canonical = (address: string): string => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (!ipaddr.isValid(bare)) return bare
  const parsed = ipaddr.parse(bare)
  return parsed.kind() === "ipv6" ? (parsed as ipaddr.IPv6).toRFC5952String() : parsed.toString()
}

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
            : `target URL must use https (${parsed.protocol.replace(/:$/, "")} is not allowed)`
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
        return yield* reject(url, "address", `target is ${rejection} (${canonical(literal)})`)
      }
      const pinned = canonical(literal)
      return { url: parsed, hostname: pinned, addresses: [pinned], pinned, family: familyOf(pinned) }
    }

    const name = rawHost.toLowerCase().replace(/\.$/, "")
    const nameRejection = hostnameRejection(name, allowLocal)
    if (nameRejection !== undefined) return yield* reject(url, "hostname", nameRejection)

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
        return yield* reject(url, "address", `target resolves to ${rejection} (${canonical(address)})`)
      }
      const text = canonical(address)
      if (!addresses.includes(text)) addresses.push(text)
    }
    if (addresses.length === 0) {
      return yield* reject(url, "unresolvable", `target hostname ${name} resolved to no address`)
    }
    const pinned = addresses.find((address) => familyOf(address) === 4) ?? addresses[0]!
    return { url: parsed, hostname: name, addresses, pinned, family: familyOf(pinned) }
  })
