import type { SendResult } from "@platform/sdk"
import type { Command } from "commander"
import type { Context } from "../../context.js"
import { int } from "../util.js"

/** Adds --channel, --to and --idempotency-key, the options every send takes. */
export const sendOptions = (cmd: Command): Command =>
  cmd
    .requiredOption("--channel <id>", "channel id (see `platform channels list`)", int)
    .requiredOption("--to <recipient>", "recipient: phone number (chat) or user id (social)")
    .option("--idempotency-key <key>", "reuse to make a retried send safe (default: generated)")

/** Prints a send result. */
export const printSent = (ctx: Context, result: SendResult): void =>
  ctx.out.result(result, () => ctx.out.line(`${ctx.out.c.green("✓")} Sent ${result.type} message ${ctx.out.c.bold(result.message_id)} via channel ${result.channel_id}`))

/** The RequestOptions for an optional --idempotency-key. */
export const keyOption = (opts: { idempotencyKey?: string }) => (opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {})

/** The reply-to `context` of a send for an optional --reply-to. */
export const replyTo = (opts: { replyTo?: string }) => (opts.replyTo ? { context: { message_id: opts.replyTo } } : {})
