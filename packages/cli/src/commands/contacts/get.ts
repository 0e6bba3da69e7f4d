import { command, int, type CommandFactory } from "../util.js"

export const contactsGet: CommandFactory = (ctx) =>
  command("get", "Show a contact")
    .argument("<contact_id>", "contact id", int)
    .action(async (id: number) => {
      const contact = await (await ctx.client()).contacts.retrieve(id)
      ctx.out.result(contact, () => ctx.out.fields(Object.entries(contact)))
    })
