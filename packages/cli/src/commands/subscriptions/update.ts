import { usage } from "../../context.js"
import { command, int, type CommandFactory } from "../util.js"
import { bodyFrom, bodyOptions, clearOptions, printSubscription, warnDroppedHeaders } from "./common.js"

export const subscriptionsUpdate: CommandFactory = (ctx) =>
  clearOptions(bodyOptions(command("update", "Change fields of a subscription"), "update"))
    .argument("<id>", "subscription id", int)
    .option("--url <target_url>", "new target URL")
    .option("--active", "switch it on")
    .option("--inactive", "switch it off without deleting it")
    .action(async (id: number, o) => {
      if (o.active && o.inactive) throw usage("--active and --inactive exclude each other")
      const body = {
        ...bodyFrom(o),
        ...(o.url !== undefined ? { target_url: o.url as string } : {}),
        ...(o.active ? { is_active: true } : o.inactive ? { is_active: false } : {})
      }
      if (Object.keys(body).length === 0) throw usage("nothing to update: give at least one option (see --help)")
      const updated = await (await ctx.client()).webhooks.subscriptions.update(id, body)
      printSubscription(ctx, updated, "Updated")
      warnDroppedHeaders(ctx, body.custom_headers, updated)
    })
