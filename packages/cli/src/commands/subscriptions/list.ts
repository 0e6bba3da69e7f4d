import type { WebhookSubscription } from "@platform/sdk"
import { command, int, type CommandFactory } from "../util.js"
import { columns } from "./common.js"

export const subscriptionsList: CommandFactory = (ctx) =>
  command("list", "List webhook subscriptions, newest first")
    .option("--limit <n>", "page size (1..200)", int)
    .option("--all", "fetch every page")
    .action(async (o) => {
      const client = await ctx.client()
      const pages = client.webhooks.subscriptions.list(o.limit !== undefined ? { limit: o.limit as number } : {})
      const rows: WebhookSubscription[] = []
      let hasMore = false
      if (o.all) for await (const s of pages) rows.push(s)
      else {
        const page = await ctx.out.spin("Loading", Promise.resolve(pages))
        rows.push(...page.data)
        hasMore = page.hasNextPage()
      }
      ctx.out.result(rows, () => {
        ctx.out.table(rows, columns(ctx), "No subscriptions yet: `platform subscriptions create --url https://...`.")
        if (hasMore) ctx.out.info(ctx.out.ce.dim("More subscriptions exist: use --all."))
      })
    })
