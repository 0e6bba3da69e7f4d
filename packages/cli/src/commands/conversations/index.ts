import { command, type CommandFactory } from "../util.js"
import { conversationsGet } from "./get.js"
import { conversationsList } from "./list.js"
import { conversationsUpdate } from "./update.js"

export const conversations: CommandFactory = (ctx) =>
  command("conversations", "Conversations with your contacts")
    .addCommand(conversationsList(ctx))
    .addCommand(conversationsGet(ctx))
    .addCommand(conversationsUpdate(ctx))
