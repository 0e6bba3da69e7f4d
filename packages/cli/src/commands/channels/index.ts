import { command, type CommandFactory } from "../util.js"
import { channelsConnect, channelsDisconnect } from "./connect.js"
import { channelsBlock, channelsUnblock } from "./block.js"
import { channelsDisplayName } from "./display-name.js"
import { channelsHealth } from "./health.js"
import { channelsInbound } from "./inbound.js"
import { channelsList } from "./list.js"
import { channelsProfile } from "./profile.js"
import { channelsTwoFactor } from "./two-factor.js"

export const channels: CommandFactory = (ctx) =>
  command("channels", "The account's channels")
    .addCommand(channelsList(ctx))
    .addCommand(channelsInbound(ctx))
    .addCommand(channelsHealth(ctx))
    .addCommand(channelsProfile(ctx))
    .addCommand(channelsDisplayName(ctx))
    .addCommand(channelsBlock(ctx))
    .addCommand(channelsUnblock(ctx))
    .addCommand(channelsTwoFactor(ctx))
    .addCommand(channelsConnect(ctx))
    .addCommand(channelsDisconnect(ctx))
