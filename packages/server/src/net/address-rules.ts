/**
 * Which IP addresses the SSRF guard refuses, and the canonical text of an address.
 *
 * Address rules use ipaddr.js (`range()` as the catch-all: only `unicast` is
 * accepted) plus explicit CIDR lists that name what was hit; IPv4 embedded in
 * IPv6 (mapped, IPv4-translated, NAT64, 6to4, IPv4-compatible) is judged by the
 * embedded IPv4, Teredo is refused outright. Cloud metadata addresses are refused
 * even with `allowLocal`, which admits loopback only.
 */
import ipaddr from "ipaddr.js"

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

/** Strips brackets and an IPv6 zone id and canonicalises the address text. */
export const canonicalAddress = (address: string): string => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (!ipaddr.isValid(bare)) return bare
  const parsed = ipaddr.parse(bare)
  return parsed.kind() === "ipv6" ? (parsed as ipaddr.IPv6).toRFC5952String() : parsed.toString()
}
