import { command, int, type CommandFactory } from "../util.js"
import { printBroadcast } from "./common.js"

export const broadcastsCancel: CommandFactory = (ctx) =>
  command("cancel", "Cancel a scheduled or sending broadcast back to draft (recipients already sent stay sent)")
    .argument("<id>", "broadcast id", int)
    .action(async (id: number) => printBroadcast(ctx, await (await ctx.client()).broadcasts.cancel(id), "Cancelled"))
