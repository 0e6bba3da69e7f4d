import { InvalidArgumentError } from "commander"
import { usage } from "../../context.js"
import { command, defined, int, json, type CommandFactory } from "../util.js"

/** Parses --metadata: a JSON object. */
const metadata = (value: string): Record<string, unknown> => {
  const parsed = json(value)
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new InvalidArgumentError("must be a JSON object")
  return parsed as Record<string, unknown>
}

export const contactsUpdate: CommandFactory = (ctx) =>
  command("update", "Set a contact's display name or metadata")
    .argument("<contact_id>", "contact id", int)
    .option("--display-name <name>", "the name to show for this contact (up to 255 characters)")
    .option("--metadata <json>", "a JSON object merged into the contact's metadata; a key set to null is removed", metadata)
    .action(async (id: number, o) => {
      if (o.displayName === undefined && o.metadata === undefined) throw usage("nothing to change: give --display-name and/or --metadata")
      const body = defined({
        display_name: o.displayName as string | undefined,
        contact_metadata: o.metadata as Record<string, unknown> | undefined
      })
      const contact = await (await ctx.client()).contacts.update(id, body)
      ctx.out.result(contact, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Updated contact ${ctx.out.c.bold(String(contact.id))}`)
        ctx.out.fields(Object.entries(contact))
      })
    })
