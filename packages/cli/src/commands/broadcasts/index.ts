import { command, type CommandFactory } from "../util.js"
import { broadcastsAddRecipients } from "./add-recipients.js"
import { broadcastsCancel } from "./cancel.js"
import { broadcastsCreate } from "./create.js"
import { broadcastsGet } from "./get.js"
import { broadcastsList } from "./list.js"
import { broadcastsRecipients } from "./recipients.js"
import { broadcastsSchedule } from "./schedule.js"
import { broadcastsSend } from "./send.js"

export const broadcasts: CommandFactory = (ctx) =>
  command("broadcasts", "Template broadcasts on chat channels (not on the free plan)")
    .addCommand(broadcastsList(ctx))
    .addCommand(broadcastsGet(ctx))
    .addCommand(broadcastsCreate(ctx))
    .addCommand(broadcastsAddRecipients(ctx))
    .addCommand(broadcastsRecipients(ctx))
    .addCommand(broadcastsSchedule(ctx))
    .addCommand(broadcastsSend(ctx))
    .addCommand(broadcastsCancel(ctx))
