import { command, type CommandFactory } from "../util.js"
import { sandboxInbound } from "./inbound.js"

export const sandbox: CommandFactory = (ctx) => command("sandbox", "Sandbox upstream helpers (local development)").addCommand(sandboxInbound(ctx))
