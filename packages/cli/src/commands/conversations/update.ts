import { Option } from "commander"
import { command, int, type CommandFactory } from "../util.js"

export const conversationsUpdate: CommandFactory = (ctx) =>
  command("update", "End or re-activate a conversation")
    .argument("<conversation_id>", "conversation id (data.conversation_id of its events)", int)
    .addOption(new Option("--status <status>", "ended (emits conversation.ended) or active").choices(["active", "ended"]).makeOptionMandatory())
    .action(async (id: number, o) => {
      const conversation = await (await ctx.client()).conversations.update(id, { status: o.status as "active" | "ended" })
      ctx.out.result(conversation, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Conversation ${ctx.out.c.bold(String(conversation.id))} is ${conversation.status}`)
        ctx.out.fields(Object.entries(conversation))
      })
    })
