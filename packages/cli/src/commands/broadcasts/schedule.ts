import { InvalidArgumentError } from "commander"
import { command, int, type CommandFactory } from "../util.js"
import { printBroadcast } from "./common.js"

/** An ISO 8601 date-time with a zone, as the API takes it. */
const timestamp = (value: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError("must be an ISO 8601 date-time with a time zone, e.g. 2025-06-01T09:00:00Z")
  }
  return value
}

export const broadcastsSchedule: CommandFactory = (ctx) =>
  command("schedule", "Schedule a draft broadcast")
    .argument("<id>", "broadcast id", int)
    .requiredOption("--at <date-time>", "when to send, ISO 8601 with a zone (e.g. 2025-06-01T09:00:00Z); must be in the future", timestamp)
    .action(async (id: number, o) =>
      printBroadcast(ctx, await (await ctx.client()).broadcasts.schedule(id, { scheduled_at: o.at as string }), "Scheduled"))
