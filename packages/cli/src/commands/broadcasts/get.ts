import { command, int, type CommandFactory } from "../util.js"
import { printBroadcast } from "./common.js"

export const broadcastsGet: CommandFactory = (ctx) =>
  command("get", "Show a broadcast")
    .argument("<id>", "broadcast id", int)
    .action(async (id: number) => printBroadcast(ctx, await (await ctx.client()).broadcasts.retrieve(id)))
