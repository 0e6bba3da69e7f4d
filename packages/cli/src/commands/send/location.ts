import { command, defined, num, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendLocation: CommandFactory = (ctx) =>
  sendOptions(command("location", "Send a location pin"))
    .requiredOption("--latitude <deg>", "latitude", num)
    .requiredOption("--longitude <deg>", "longitude", num)
    .option("--name <name>", "place name")
    .option("--address <address>", "address")
    .action(async (o) => {
      const client = await ctx.client()
      const location = defined({ latitude: o.latitude as number, longitude: o.longitude as number, name: o.name as string | undefined, address: o.address as string | undefined })
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendLocation({ channel_id: o.channel as number, to: o.to as string, location }, keyOption(o))))
    })
