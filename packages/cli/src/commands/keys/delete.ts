import { confirm } from "../../confirm.js"
import { dashboard } from "../../dashboard/session.js"
import { command, int, type CommandFactory } from "../util.js"
import { KEYS_PATH } from "./common.js"

export const keysDelete: CommandFactory = (ctx) =>
  command("delete", "Delete an API key: requests with it are 401 from then on")
    .argument("<id>", "the key's id (`platform keys list`)", int)
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (id: number, o: { yes?: boolean }) => {
      await confirm(ctx, `Delete API key ${id}? Every request with it will be refused.`, o.yes === true)
      await dashboard(ctx, "DELETE", `${KEYS_PATH}/${id}`)
      ctx.out.result({ id, deleted: true }, () => ctx.out.line(`${ctx.out.c.green("✓")} Deleted API key ${id}`))
    })
