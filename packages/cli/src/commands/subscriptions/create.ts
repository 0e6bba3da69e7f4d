import { command, type CommandFactory } from "../util.js"
import { bodyFrom, bodyOptions, printSubscription, warnDroppedHeaders } from "./common.js"

export const subscriptionsCreate: CommandFactory = (ctx) =>
  bodyOptions(command("create", "Create a webhook subscription (prints its secret once)"))
    .requiredOption("--url <target_url>", "HTTPS URL that receives the events")
    .option("--inactive", "create it switched off")
    .action(async (o) => {
      const body = { target_url: o.url as string, ...bodyFrom(o), ...(o.inactive ? { is_active: false } : {}) }
      const created = await (await ctx.client()).webhooks.subscriptions.create(body)
      printSubscription(ctx, created, "Created")
      warnDroppedHeaders(ctx, body.custom_headers, created)
    })
