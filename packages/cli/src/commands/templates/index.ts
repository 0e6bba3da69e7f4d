import { command, type CommandFactory } from "../util.js"
import { templatesCreate } from "./create.js"
import { templatesDelete } from "./delete.js"
import { templatesGet } from "./get.js"
import { templatesHeaderMedia } from "./header-media.js"
import { templatesList } from "./list.js"
import { templatesSync } from "./sync.js"
import { templatesUpdate } from "./update.js"

export const templates: CommandFactory = (ctx) =>
  command("templates", "Message templates of chat channels")
    .addCommand(templatesList(ctx))
    .addCommand(templatesGet(ctx))
    .addCommand(templatesCreate(ctx))
    .addCommand(templatesUpdate(ctx))
    .addCommand(templatesDelete(ctx))
    .addCommand(templatesSync(ctx))
    .addCommand(templatesHeaderMedia(ctx))
