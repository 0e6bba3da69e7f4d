import { command, type CommandFactory } from "../util.js"
import { deliveriesGet } from "./get.js"
import { deliveriesList } from "./list.js"
import { deliveriesRedeliver } from "./redeliver.js"
import { deliveriesTail } from "./tail.js"

export const deliveries: CommandFactory = (ctx) =>
  command("deliveries", "Webhook delivery attempts")
    .addCommand(deliveriesList(ctx))
    .addCommand(deliveriesGet(ctx))
    .addCommand(deliveriesRedeliver(ctx))
    .addCommand(deliveriesTail(ctx))
