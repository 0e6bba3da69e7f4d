import { ApiError } from "./api-error"
import { post } from "./client"

let known: Promise<boolean> | undefined

/**
 * Whether this server runs the sandbox upstream, asked the way the CLI asks: the sandbox
 * inbound route answers an unknown channel with 404 not_found, or says the sandbox is off.
 */
export const isSandbox = (): Promise<boolean> =>
  (known ??= post("/platform/dashboard/sandbox/inbound", { channel_id: 2147483647, from: "15550000000", text: "probe" }).then(
    () => true,
    (error: unknown) => error instanceof ApiError && error.status === 404 && !/sandbox upstream is not enabled/.test(error.message)
  ))
