/**
 * How the SSRF guard resolves a hostname: node:dns by default, with a timeout and a
 * short positive cache, or a resolver injected through `DnsResolver` (tests, a
 * static table).
 */
import { Context, Effect, Layer, Schema } from "effect"
import { lookup } from "node:dns"

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

/** The node:dns resolver with its defaults: one cache for every check that passes no resolver of its own. */
export const defaultResolver = makeNodeResolver()

/**
 * The resolver `checkUrl` uses when none is passed in its options. Optional in
 * the context: without it node:dns is used, so `checkUrl` needs no layer.
 */
export class DnsResolver extends Context.Tag("@platform/server/delivery/DnsResolver")<DnsResolver, Resolver>() {
  static readonly node: Layer.Layer<DnsResolver> = Layer.succeed(DnsResolver, defaultResolver)
  static readonly layerStatic = (table: Readonly<Record<string, ReadonlyArray<string>>>): Layer.Layer<DnsResolver> =>
    Layer.succeed(DnsResolver, staticResolver(table))
}
