/** The part of autocannon's API `bench/inbound-load.ts`, `bench/send-load.ts` and `bench/send-floor.ts` use (the package ships no types). */
declare module "autocannon" {
  export interface Request {
    readonly method?: string
    readonly path?: string
    readonly body?: string
    readonly headers?: Record<string, string>
    readonly setupRequest?: (request: Request) => Request
  }
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly overallRate?: number
    readonly requests?: ReadonlyArray<Request>
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each caller types the client events it listens to
    readonly setupClient?: (client: any) => void
  }
  interface Result {
    readonly duration: number
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly requests: { readonly total: number; readonly average: number }
    readonly latency: { readonly p50: number; readonly p99: number }
  }
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): unknown
  export default autocannon
}
