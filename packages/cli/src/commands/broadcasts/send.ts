import { command, int, type CommandFactory } from "../util.js"
import { keyOption, printBroadcast } from "./common.js"

export const broadcastsSend: CommandFactory = (ctx) =>
  command("send", "Send a draft or scheduled broadcast now")
    .argument("<id>", "broadcast id", int)
    .option("--idempotency-key <key>", "reuse to make a retried send safe (default: generated)")
    .action(async (id: number, o) => {
      printBroadcast(ctx, await (await ctx.client()).broadcasts.send(id, keyOption(o)), "Sending")
      ctx.out.info(ctx.out.ce.dim(`The send cycle picks it up within 30 s; follow it with: platform broadcasts recipients ${id}`))
    })
