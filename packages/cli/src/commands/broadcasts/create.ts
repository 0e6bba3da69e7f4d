import { command, int, json, type CommandFactory } from "../util.js"
import { keyOption, printBroadcast } from "./common.js"

export const broadcastsCreate: CommandFactory = (ctx) =>
  command("create", "Create a draft broadcast of one template on a chat channel")
    .requiredOption("--name <name>", "a name for the broadcast (up to 200 characters)")
    .requiredOption("--channel <id>", "chat channel id (see `platform channels list`)", int)
    .requiredOption("--template <template_name>", "approved template name")
    .requiredOption("--language <code>", "template language code, e.g. en_US")
    .option("--components <json>", "runtime components of every recipient, as a JSON array", json)
    .option("--idempotency-key <key>", "reuse to make a retried create safe (default: generated)")
    .action(async (o) => {
      const client = await ctx.client()
      const body = {
        name: o.name as string,
        channel_id: o.channel as number,
        template_name: o.template as string,
        language_code: o.language as string,
        ...(o.components !== undefined ? { components: o.components as never } : {})
      }
      const created = await ctx.out.spin("Creating", client.broadcasts.create(body, keyOption(o)))
      printBroadcast(ctx, created, "Created")
      ctx.out.info(ctx.out.ce.dim(`Next: platform broadcasts add-recipients ${created.id} --file recipients.csv`))
    })
