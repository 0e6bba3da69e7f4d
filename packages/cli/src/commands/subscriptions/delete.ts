import { command, int, type CommandFactory } from "../util.js"

export const subscriptionsDelete: CommandFactory = (ctx) =>
  command("delete", "Delete a subscription")
    .argument("<id>", "subscription id", int)
    .action(async (id: number) => {
      await (await ctx.client()).webhooks.subscriptions.delete(id)
      ctx.out.result({ id, deleted: true }, () => ctx.out.line(`${ctx.out.c.green("✓")} Deleted subscription ${id}`))
    })
