import { command, type CommandFactory } from "../util.js"
import { contactsDelete } from "./delete.js"
import { contactsGet } from "./get.js"
import { contactsList } from "./list.js"
import { contactsUpdate } from "./update.js"

export const contacts: CommandFactory = (ctx) =>
  command("contacts", "The people on your channels")
    .addCommand(contactsList(ctx))
    .addCommand(contactsGet(ctx))
    .addCommand(contactsUpdate(ctx))
    .addCommand(contactsDelete(ctx))
