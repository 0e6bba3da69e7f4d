import { command, type CommandFactory } from "../util.js"
import { eventsTail } from "./tail.js"

export const events: CommandFactory = (ctx) => command("events", "The live event stream").addCommand(eventsTail(ctx))
