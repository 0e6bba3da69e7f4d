import { command, type CommandFactory } from "../util.js"
import { conversationsUpdate } from "./update.js"

export const conversations: CommandFactory = (ctx) => command("conversations", "Conversations with your contacts").addCommand(conversationsUpdate(ctx))
