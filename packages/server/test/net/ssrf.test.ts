import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { addressRejection } from "../../src/net/address-rules.js"
import { DnsResolver, makeNodeResolver, type Resolver, staticResolver } from "../../src/net/dns-resolver.js"
import { checkUrl, type SsrfRejectionKind } from "../../src/net/ssrf.js"

/** Fake DNS: no test here needs the real network. */
const dns = staticResolver({
  "private.example": ["10.0.0.5"],
  "mixed.example": ["93.184.216.34", "192.168.1.10"],
  "mixed-v6.example": ["2606:4700:4700::1111", "fd00::1"],
  "metadata.example": ["169.254.169.254"],
  "mapped-loopback.example": ["::ffff:127.0.0.1"],
  "zoned.example": ["fe80::1%eth0"],
  "public.example": ["2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"],
  "example.com": ["93.184.216.34"],
  "localhost": ["127.0.0.1", "::1"],
  "receiver.test": ["127.0.0.1"]
})

interface Rejected {
  readonly url: string
  readonly kind: SsrfRejectionKind
  readonly reason: string
}

/** Refused without allowLocal; `reason` is a substring of the human reason. */
const rejected: ReadonlyArray<Rejected> = [
  // IPv4 literal notations (WHATWG URL normalises them to a dotted quad first)
  { url: "https://2130706433/", kind: "address", reason: "target is a loopback address (127.0.0.1)" },
  { url: "https://0x7f000001/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://0177.0.0.1/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://017700000001/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://127.1/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://0x7f.1/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://0x7f.0x0.0x0.0x1/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://%31%32%37.0.0.1/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://127.0.0.1.:8443/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  // IPv4 embedded in IPv6, judged by the embedded address
  { url: "https://[::ffff:127.0.0.1]/", kind: "address", reason: "IPv4-mapped IPv6 address embedding a loopback address 127.0.0.1" },
  { url: "https://[::ffff:7f00:1]/", kind: "address", reason: "embedding a loopback address 127.0.0.1 (::ffff:7f00:1)" },
  { url: "https://[::ffff:a9fe:a9fe]/", kind: "address", reason: "embedding a cloud metadata address 169.254.169.254" },
  { url: "https://[64:ff9b::a00:1]/", kind: "address", reason: "NAT64 IPv6 address embedding a private address 10.0.0.1" },
  { url: "https://[64:ff9b::a9fe:a9fe]/", kind: "address", reason: "NAT64 IPv6 address embedding a cloud metadata address" },
  { url: "https://[2002:a00:1::]/", kind: "address", reason: "6to4 IPv6 address embedding a private address 10.0.0.1" },
  { url: "https://[::7f00:1]/", kind: "address", reason: "IPv4-compatible IPv6 address embedding a loopback address" },
  { url: "https://[::ffff:0:a00:1]/", kind: "address", reason: "IPv4-translated IPv6 address embedding a private address" },
  { url: "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", kind: "address", reason: "a Teredo tunnel address" },
  { url: "https://[64:ff9b:1::a00:1]/", kind: "address", reason: "a local-use NAT64 address" },
  // IPv6 ranges
  { url: "https://[::1]/", kind: "address", reason: "target is a loopback address (::1)" },
  { url: "https://[::]/", kind: "address", reason: "an unspecified address (::)" },
  { url: "https://[fd12:3456:789a::1]/", kind: "address", reason: "a unique local address (fd12:3456:789a::1)" },
  { url: "https://[fd00:ec2::254]/", kind: "address", reason: "a cloud metadata address (fd00:ec2::254)" },
  { url: "https://[fe80::1]/", kind: "address", reason: "a link-local address (fe80::1)" },
  { url: "https://[fec0::1]/", kind: "address", reason: "a site-local address" },
  { url: "https://[ff02::1]/", kind: "address", reason: "a multicast address (ff02::1)" },
  { url: "https://[2001:db8::1]/", kind: "address", reason: "a documentation address (2001:db8::1)" },
  { url: "https://[fe80::1%25eth0]/", kind: "invalid_url", reason: "not a valid absolute URL" },
  // IPv4 ranges
  { url: "https://169.254.169.254/latest/meta-data/", kind: "address", reason: "a cloud metadata address (169.254.169.254)" },
  { url: "https://0xa9.0xfe.0xa9.0xfe/", kind: "address", reason: "a cloud metadata address (169.254.169.254)" },
  { url: "https://169.254.10.10/", kind: "address", reason: "a link-local address (169.254.10.10)" },
  { url: "https://100.64.0.1/", kind: "address", reason: "a carrier-grade NAT address (100.64.0.1)" },
  { url: "https://100.127.255.254/", kind: "address", reason: "a carrier-grade NAT address" },
  { url: "https://10.1.2.3/", kind: "address", reason: "a private address (10.1.2.3)" },
  { url: "https://172.16.5.4/", kind: "address", reason: "a private address (172.16.5.4)" },
  { url: "https://172.31.255.255/", kind: "address", reason: "a private address" },
  { url: "https://192.168.0.1/", kind: "address", reason: "a private address (192.168.0.1)" },
  { url: "https://224.0.0.1/", kind: "address", reason: "a multicast address (224.0.0.1)" },
  { url: "https://255.255.255.255/", kind: "address", reason: "a broadcast address (255.255.255.255)" },
  { url: "https://0.0.0.0/", kind: "address", reason: "an unspecified address (0.0.0.0)" },
  { url: "https://0/", kind: "address", reason: "an unspecified address (0.0.0.0)" },
  { url: "https://0.1.2.3/", kind: "address", reason: "an unspecified address (0.1.2.3)" },
  { url: "https://240.0.0.1/", kind: "address", reason: "a reserved address (240.0.0.1)" },
  { url: "https://192.0.2.10/", kind: "address", reason: "a documentation address (192.0.2.10)" },
  { url: "https://198.51.100.7/", kind: "address", reason: "a documentation address" },
  { url: "https://203.0.113.9/", kind: "address", reason: "a documentation address" },
  { url: "https://198.18.0.1/", kind: "address", reason: "a benchmarking address (198.18.0.1)" },
  { url: "https://192.0.0.8/", kind: "address", reason: "an IETF protocol assignment address (192.0.0.8)" },
  // Names refused before any lookup
  { url: "https://localhost/", kind: "hostname", reason: "localhost is a loopback name" },
  { url: "https://localhost./", kind: "hostname", reason: "localhost is a loopback name" },
  { url: "https://LOCALHOST/", kind: "hostname", reason: "localhost is a loopback name" },
  { url: "https://api.localhost/", kind: "hostname", reason: "api.localhost is a loopback name" },
  { url: "https://metadata.google.internal/", kind: "hostname", reason: "an internal name (.internal)" },
  { url: "https://printer.local/", kind: "hostname", reason: "an internal name (.local)" },
  { url: "https://printer.LOCAL./", kind: "hostname", reason: "an internal name (.local)" },
  { url: "https://intranet/", kind: "hostname", reason: "single-label" },
  // Userinfo and parser tricks
  { url: "https://example.com@127.0.0.1/", kind: "userinfo", reason: "must not contain credentials" },
  { url: "https://user:pass@example.com/", kind: "userinfo", reason: "must not contain credentials" },
  { url: "https://127.0.0.1#@example.com", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://127.0.0.1\\@example.com/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  { url: "https://127.0.0.1?@example.com/", kind: "address", reason: "a loopback address (127.0.0.1)" },
  // Names resolving to refused addresses (injected resolver)
  { url: "https://private.example/hook", kind: "address", reason: "target resolves to a private address (10.0.0.5)" },
  { url: "https://mixed.example/", kind: "address", reason: "target resolves to a private address (192.168.1.10)" },
  { url: "https://mixed-v6.example/", kind: "address", reason: "target resolves to a unique local address (fd00::1)" },
  { url: "https://metadata.example/", kind: "address", reason: "target resolves to a cloud metadata address (169.254.169.254)" },
  { url: "https://mapped-loopback.example/", kind: "address", reason: "embedding a loopback address 127.0.0.1" },
  { url: "https://zoned.example/", kind: "address", reason: "target resolves to a link-local address (fe80::1%eth0)" },
  { url: "https://nxdomain.example/", kind: "unresolvable", reason: "nxdomain.example could not be resolved (ENOTFOUND)" },
  // Schemes
  { url: "http://example.com/", kind: "scheme", reason: "must use https (http is not allowed)" },
  { url: "ftp://example.com/file", kind: "scheme", reason: "must use https (ftp is not allowed)" },
  { url: "file:///etc/passwd", kind: "scheme", reason: "must use https (file is not allowed)" },
  { url: "gopher://example.com:70/", kind: "scheme", reason: "must use https (gopher is not allowed)" },
  { url: "not a url", kind: "invalid_url", reason: "not a valid absolute URL" },
  // The parser would drop these, calling another URL than the one stored and shown
  { url: "  https://93.184.216.34/hook", kind: "invalid_url", reason: "must not contain spaces, tabs, line breaks or control characters" },
  { url: "https://93.184.216.34/hook\n", kind: "invalid_url", reason: "must not contain spaces, tabs, line breaks or control characters" },
  { url: "https://93.184.216.34/ho\tok", kind: "invalid_url", reason: "must not contain spaces, tabs, line breaks or control characters" },
  { url: "https://93.184.216.34/a b", kind: "invalid_url", reason: "must not contain spaces, tabs, line breaks or control characters" },
  // Nothing listens on port 0: every delivery would fail
  { url: "https://1.1.1.1:0/x", kind: "invalid_url", reason: "port 0" }
]

interface Accepted {
  readonly url: string
  readonly pinned: string
  readonly addresses: ReadonlyArray<string>
  readonly hostname: string
}

const accepted: ReadonlyArray<Accepted> = [
  { url: "https://93.184.216.34/hook", pinned: "93.184.216.34", addresses: ["93.184.216.34"], hostname: "93.184.216.34" },
  { url: "https://1.1.1.1:8443/x?y=1", pinned: "1.1.1.1", addresses: ["1.1.1.1"], hostname: "1.1.1.1" },
  {
    url: "https://[2606:4700:4700::1111]/",
    pinned: "2606:4700:4700::1111",
    addresses: ["2606:4700:4700::1111"],
    hostname: "2606:4700:4700::1111"
  },
  {
    url: "https://[2606:4700:4700:0:0:0:0:1111]/",
    pinned: "2606:4700:4700::1111",
    addresses: ["2606:4700:4700::1111"],
    hostname: "2606:4700:4700::1111"
  },
  { url: "https://[::ffff:93.184.216.34]/", pinned: "::ffff:5db8:d822", addresses: ["::ffff:5db8:d822"], hostname: "::ffff:5db8:d822" },
  { url: "https://[64:ff9b::808:808]/", pinned: "64:ff9b::808:808", addresses: ["64:ff9b::808:808"], hostname: "64:ff9b::808:808" },
  {
    url: "https://public.example/webhooks",
    pinned: "93.184.216.34",
    addresses: ["2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"],
    hostname: "public.example"
  },
  { url: "https://EXAMPLE.com./hook", pinned: "93.184.216.34", addresses: ["93.184.216.34"], hostname: "example.com" }
]

describe("checkUrl without allowLocal", () => {
  it("refuses at least 30 distinct URL forms", () => {
    expect(new Set(rejected.map((row) => row.url)).size).toBeGreaterThanOrEqual(30)
  })

  it.effect.each(rejected)("refuses $url ($kind)", (row) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(checkUrl(row.url, { allowLocal: false, resolver: dns }))
      expect(error._tag).toBe("SsrfRejected")
      expect(error.kind).toBe(row.kind)
      expect(error.reason).toContain(row.reason)
      expect(error.url).toBe(row.url)
    }))

  it.effect.each(accepted)("accepts $url and pins $pinned", (row) =>
    Effect.gen(function*() {
      const target = yield* checkUrl(row.url, { allowLocal: false, resolver: dns })
      expect(target.pinned).toBe(row.pinned)
      expect(target.addresses).toEqual(row.addresses)
      expect(target.hostname).toBe(row.hostname)
      expect(target.family).toBe(row.pinned.includes(":") ? 6 : 4)
      expect(target.url.href).toBe(new URL(row.url).href)
    }))

  it.effect("resolves the hostname exactly once and checks every address it returned", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const counting: Resolver = {
        resolve: (hostname) => Effect.sync(() => asked.push(hostname)).pipe(Effect.andThen(dns.resolve(hostname)))
      }
      const target = yield* checkUrl("https://public.example/", { allowLocal: false, resolver: counting })
      expect(asked).toEqual(["public.example"])
      expect(target.addresses).toHaveLength(2)
    }))

  it.effect("uses the DnsResolver service from the context when no resolver is passed", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(checkUrl("https://rebind.example/", { allowLocal: false }))
      expect(error.reason).toBe("target resolves to a private address (10.9.8.7)")
    }).pipe(Effect.provide(DnsResolver.layerStatic({ "rebind.example": ["10.9.8.7"] }))))

  it.effect("explains a rejection in a sentence fit for a 422 body", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(checkUrl("https://private.example/", { allowLocal: false, resolver: dns }))
      expect(error.message).toBe("target resolves to a private address (10.0.0.5)")
    }))
})

describe("checkUrl with allowLocal (tests, local dev)", () => {
  const allowedLocally = [
    { url: "http://127.0.0.1:8080/hook", pinned: "127.0.0.1" },
    { url: "https://127.0.0.1/", pinned: "127.0.0.1" },
    { url: "http://2130706433:9000/", pinned: "127.0.0.1" },
    { url: "http://[::1]:8080/", pinned: "::1" },
    { url: "http://localhost:3000/", pinned: "127.0.0.1" },
    { url: "http://receiver.test:4000/", pinned: "127.0.0.1" },
    { url: "http://example.com/", pinned: "93.184.216.34" }
  ]

  it.effect.each(allowedLocally)("accepts $url", (row) =>
    Effect.gen(function*() {
      const target = yield* checkUrl(row.url, { allowLocal: true, resolver: dns })
      expect(target.pinned).toBe(row.pinned)
    }))

  const stillRefused = [
    { url: "http://169.254.169.254/latest/meta-data/", reason: "a cloud metadata address (169.254.169.254)" },
    { url: "http://[fd00:ec2::254]/", reason: "a cloud metadata address (fd00:ec2::254)" },
    { url: "http://[::ffff:169.254.169.254]/", reason: "embedding a cloud metadata address" },
    { url: "http://metadata.example/", reason: "resolves to a cloud metadata address" },
    { url: "http://10.0.0.1/", reason: "a private address (10.0.0.1)" },
    { url: "http://private.example/", reason: "resolves to a private address (10.0.0.5)" },
    { url: "http://metadata.google.internal/", reason: "an internal name" },
    { url: "http://user:secret@127.0.0.1/", reason: "must not contain credentials" },
    { url: "ftp://127.0.0.1/", reason: "ftp is not allowed" }
  ]

  it.effect.each(stillRefused)("still refuses $url", (row) =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(checkUrl(row.url, { allowLocal: true, resolver: dns }))
      expect(error.reason).toContain(row.reason)
    }))
})

describe("addressRejection", () => {
  const rows: ReadonlyArray<{ readonly address: string; readonly allowLocal: boolean; readonly expected: string | undefined }> = [
    { address: "8.8.8.8", allowLocal: false, expected: undefined },
    { address: "2001:4860:4860::8888", allowLocal: false, expected: undefined },
    { address: "127.0.0.1", allowLocal: false, expected: "a loopback address" },
    { address: "127.0.0.1", allowLocal: true, expected: undefined },
    { address: "[::1]", allowLocal: true, expected: undefined },
    { address: "169.254.169.254", allowLocal: true, expected: "a cloud metadata address" },
    { address: "168.63.129.16", allowLocal: false, expected: "a cloud metadata address" },
    { address: "192.88.99.1", allowLocal: false, expected: "a 6to4 relay anycast address" },
    { address: "fe80::1%eth0", allowLocal: false, expected: "a link-local address" },
    { address: "2002:808:808::1", allowLocal: false, expected: undefined },
    { address: "not-an-ip", allowLocal: true, expected: "an invalid address" }
  ]

  it.each(rows)("judges $address (allowLocal $allowLocal)", (row) => {
    expect(addressRejection(row.address, { allowLocal: row.allowLocal })).toBe(row.expected)
  })
})

describe("makeNodeResolver", () => {
  it.live("resolves localhost through node:dns to loopback addresses only", () =>
    Effect.gen(function*() {
      const addresses = yield* makeNodeResolver({ cacheTtlMs: 0 }).resolve("localhost")
      expect(addresses.length).toBeGreaterThan(0)
      for (const address of addresses) expect(["127.0.0.1", "::1"]).toContain(address)
    }))

  it.live("reports a name that does not exist as a lookup failure with its code", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(makeNodeResolver({ cacheTtlMs: 0, timeoutMs: 3_000 }).resolve("no-such-host.invalid"))
      expect(error._tag).toBe("DnsLookupFailed")
      expect(error.code).not.toBe("")
    }))
})
