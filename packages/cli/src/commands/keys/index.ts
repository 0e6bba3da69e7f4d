import { command, type CommandFactory } from "../util.js"
import { keysCreate } from "./create.js"
import { keysDelete } from "./delete.js"
import { keysList } from "./list.js"
import { keysUpdate } from "./update.js"

export const keys: CommandFactory = (ctx) =>
  command("keys", "The account's API keys (needs `platform login --email`)")
    .addCommand(keysList(ctx))
    .addCommand(keysCreate(ctx))
    .addCommand(keysUpdate(ctx))
    .addCommand(keysDelete(ctx))
