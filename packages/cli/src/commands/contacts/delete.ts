import { command, int, type CommandFactory } from "../util.js"

export const contactsDelete: CommandFactory = (ctx) =>
  command("delete", "Delete a contact with its messages and conversations")
    .argument("<contact_id>", "contact id", int)
    .action(async (id: number) => {
      const result = await (await ctx.client()).contacts.delete(id)
      ctx.out.result(result, () =>
        ctx.out.line(
          `${ctx.out.c.green("✓")} Deleted contact ${ctx.out.c.bold(String(result.id))}: gone from every list now; ` +
            "its messages and conversations are wiped in the background"
        ))
    })
