import { dashboard } from "../../dashboard/session.js"
import { command, type CommandFactory } from "../util.js"
import { type ApiKey, keyColumns, KEYS_PATH } from "./common.js"

export const keysList: CommandFactory = (ctx) =>
  command("list", "List the account's API keys (never their plaintext)").action(async () => {
    const keys = await dashboard<ReadonlyArray<ApiKey>>(ctx, "GET", KEYS_PATH)
    ctx.out.result(keys, () => ctx.out.table(keys, keyColumns(ctx), "No API keys yet: create one with `platform keys create --name <name>`."))
  })
