import { command, type CommandFactory } from "../util.js"
import { messagesGet } from "./get.js"
import { messagesList } from "./list.js"

export const messages: CommandFactory = (ctx) =>
  command("messages", "Stored message history (send with `platform send`)")
    .addCommand(messagesList(ctx))
    .addCommand(messagesGet(ctx))
