import { command, type CommandFactory } from "../util.js"
import { channelsInbound } from "./inbound.js"
import { channelsList } from "./list.js"

export const channels: CommandFactory = (ctx) =>
  command("channels", "The account's channels").addCommand(channelsList(ctx)).addCommand(channelsInbound(ctx))
