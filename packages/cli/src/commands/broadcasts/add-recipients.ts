import { ValidationError } from "@platform/sdk"
import { usage } from "../../context.js"
import { command, int, type CommandFactory } from "../util.js"
import { readRecipients } from "./recipients-file.js"

/** The API takes up to 1000 recipients a call (SPEC §8); a bigger file is sent in calls of this size. */
const PER_CALL = 1000

export const broadcastsAddRecipients: CommandFactory = (ctx) =>
  command("add-recipients", "Load recipients from a CSV or JSON file (duplicates of `to` are skipped)")
    .argument("<id>", "broadcast id", int)
    .requiredOption("--file <path>", "CSV (a `to` column, optional `components` JSON column; or numbers in the first column) or JSON (array of numbers or {to, components})")
    .addHelpText("after", "\nA file of more than 1000 recipients is loaded 1000 at a time; a call the API refuses stops there and names the file's line.\n")
    .action(async (id: number, o) => {
      const recipients = await readRecipients(o.file as string)
      const client = await ctx.client()
      let added = 0
      let skipped = 0
      let count = 0
      for (let start = 0; start < recipients.length; start += PER_CALL) {
        const chunk = recipients.slice(start, start + PER_CALL)
        const body = { recipients: chunk.map(({ to, components }) => ({ to, ...(components !== undefined ? { components: components as never } : {}) })) }
        try {
          const result = await ctx.out.spin(`Loading ${start + chunk.length}/${recipients.length}`, client.broadcasts.addRecipients(id, body))
          added += result.added
          skipped += result.skipped
          count = result.recipient_count
        } catch (e) {
          // Issues at body.recipients.N point into this call: name the file's line instead.
          const at = e instanceof ValidationError ? e.detail.find((d) => d.loc[0] === "body" && d.loc[1] === "recipients" && typeof d.loc[2] === "number") : undefined
          if (at === undefined) throw e
          const field = at.loc.slice(3).join(".")
          throw usage(`${chunk[at.loc[2] as number]!.where}${field ? ` (${field})` : ""}: ${at.msg}${added > 0 ? ` (${added} recipients were added before it)` : ""}`)
        }
      }
      const result = { added, skipped, recipient_count: count }
      ctx.out.result(result, () =>
        ctx.out.line(`${ctx.out.c.green("✓")} Added ${added} recipients to broadcast ${ctx.out.c.bold(String(id))} (${skipped} duplicates skipped); it has ${count}`))
    })
