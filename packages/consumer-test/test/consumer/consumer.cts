// A CommonJS consumer (a .cts file under nodenext: the require conditions): what a user writes against the published types.
import { Platform, ValidationError, type Channel, type SendResult, type WebhookSubscriptionWithSecret } from "@platform/sdk"
import { verify, type WebhookEvent } from "@platform/webhook-verify"
import { sign } from "@platform/webhook-verify/testing"

const client = new Platform({ apiKey: "pk_test", baseUrl: "http://127.0.0.1:8080", maxRetries: 0 })

export const firstChat = async (): Promise<Channel | undefined> => (await client.channels.list({ type: "chat" }))[0]
export const hello = (channel: Channel): Promise<SendResult> =>
  client.messages.sendText({ channel_id: channel.channel_id, to: "15551234567", text: "Hello" })
export const secretOf = (s: WebhookSubscriptionWithSecret): string => s.secret
export const fieldOf = (e: unknown): string | undefined => (e instanceof ValidationError ? e.detail[0]?.loc.join(".") : undefined)
export const received = (e: WebhookEvent): string => e.event
export const roundTrip = async (secret: string, body: string): Promise<boolean> => (await verify(secret, body, await sign(secret, body))).ok

// @ts-expect-error a send needs its recipient
export const missing = () => client.messages.sendText({ channel_id: 1, text: "x" })
