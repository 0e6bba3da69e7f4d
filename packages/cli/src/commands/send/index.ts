import { command, type CommandFactory } from "../util.js"
import { sendLocation } from "./location.js"
import { sendMedia } from "./media.js"
import { sendCatalog, sendContacts, sendInteractive } from "./passthrough.js"
import { sendReaction } from "./reaction.js"
import { sendTemplate } from "./template.js"
import { sendText } from "./text.js"
import { sendTyping } from "./typing.js"

export const send: CommandFactory = (ctx) =>
  command("send", "Send a message")
    .addCommand(sendText(ctx))
    .addCommand(sendTemplate(ctx))
    .addCommand(sendMedia(ctx))
    .addCommand(sendReaction(ctx))
    .addCommand(sendLocation(ctx))
    .addCommand(sendInteractive(ctx))
    .addCommand(sendContacts(ctx))
    .addCommand(sendCatalog(ctx))
    .addCommand(sendTyping(ctx))
