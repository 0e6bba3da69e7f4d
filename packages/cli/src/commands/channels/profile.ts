import type { ChannelProfile, ChannelProfileUpdateParams } from "@platform/sdk"
import type { Output } from "../../output.js"
import { command, defined, int, repeat, type CommandFactory } from "../util.js"

const show = (out: Output, p: ChannelProfile) =>
  out.fields([
    ["channel", p.channel_id],
    ["about", p.about],
    ["address", p.address],
    ["description", p.description],
    ["email", p.email],
    ["vertical", p.vertical],
    ["websites", p.websites.length > 0 ? p.websites.join(", ") : null],
    ["picture", p.profile_picture_url]
  ])

export const channelsProfile: CommandFactory = (ctx) =>
  command("profile", "Show a chat channel's business profile, or change the fields given (the others stay as they are)")
    .argument("<channel_id>", "channel id", int)
    .option("--about <text>", "the profile's about text (up to 139 characters)")
    .option("--address <text>", "the business address (up to 256 characters)")
    .option("--description <text>", "a description of the business (up to 256 characters)")
    .option("--email <address>", "contact email (up to 128 characters)")
    .option("--vertical <vertical>", "the industry, such as RETAIL or RESTAURANT")
    .option("--website <url>", "a website (repeat for two); the ones given replace the stored list", repeat)
    .option("--picture-handle <handle>", "the handle of an uploaded profile picture")
    .action(async (channelId: number, o) => {
      const update: ChannelProfileUpdateParams = defined({
        about: o.about as string | undefined,
        address: o.address as string | undefined,
        description: o.description as string | undefined,
        email: o.email as string | undefined,
        vertical: o.vertical as string | undefined,
        websites: o.website as ReadonlyArray<string> | undefined,
        profile_picture_handle: o.pictureHandle as string | undefined
      })
      const client = await ctx.client()
      const changed = Object.keys(update)
      const profile = changed.length === 0
        ? await ctx.out.spin("Loading the profile", client.channels.getProfile(channelId))
        : await ctx.out.spin("Updating the profile", client.channels.updateProfile(channelId, update))
      ctx.out.result(profile, () => {
        if (changed.length > 0) ctx.out.info(`${ctx.out.ce.green("✓")} Updated ${changed.join(", ")} of channel ${channelId}'s profile`)
        show(ctx.out, profile)
      })
    })
