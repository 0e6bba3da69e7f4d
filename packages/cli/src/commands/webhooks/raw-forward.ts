import { CliError, usage } from "../../context.js"
import { dashboard } from "../../dashboard/session.js"
import type { DashboardChannel } from "../channels/connect.js"
import { command, int, type CommandFactory } from "../util.js"

interface ChannelWebhook {
  readonly channel_id: number
  readonly webhook_url: string | null
  readonly has_webhook_secret: boolean
  readonly webhook_secret?: string
}

export const webhooksRawForward: CommandFactory = (ctx) =>
  command("raw-forward", "Show or set a channel's raw forward: the upstream's JSON posted unchanged to your HTTPS URL (needs `platform login --email`)")
    .argument("<channel-id>", "the channel", int)
    .option("--url <url>", "forward to this HTTPS URL (a first URL creates the signing secret, shown once)")
    .option("--regenerate-secret", "make a new signing secret (shown once)")
    .option("--off", "stop forwarding (forgets the URL and secret)")
    .action(async (id: number, o: { url?: string; regenerateSecret?: boolean; off?: boolean }) => {
      if (o.off === true && (o.url !== undefined || o.regenerateSecret === true)) throw usage("--off goes alone (without --url or --regenerate-secret).")
      let config: ChannelWebhook
      if (o.url === undefined && o.regenerateSecret !== true && o.off !== true) {
        const channels = await dashboard<ReadonlyArray<DashboardChannel>>(ctx, "GET", "/platform/dashboard/channels")
        const channel = channels.find((c) => c.channel_id === id)
        if (channel === undefined) throw new CliError(`Channel ${id} was not found in this account.`)
        config = { channel_id: id, webhook_url: channel.webhook_url, has_webhook_secret: channel.has_webhook_secret }
      } else {
        const body = o.off === true ? { webhook_url: null } : { ...(o.url !== undefined ? { webhook_url: o.url } : {}), ...(o.regenerateSecret === true ? { regenerate_secret: true } : {}) }
        config = await dashboard<ChannelWebhook>(ctx, "PATCH", `/platform/dashboard/channels/${id}/webhook`, body)
      }
      ctx.out.result(config, () => {
        ctx.out.fields([
          ["channel id", config.channel_id],
          ["raw forward", config.webhook_url ?? "off"],
          ["signing secret", config.webhook_secret ?? (config.has_webhook_secret ? "set (shown only when created)" : "none")]
        ])
        if (config.webhook_secret !== undefined) ctx.out.info(ctx.out.ce.yellow("Copy the secret now: it is shown this once. It signs X-Platform-Signature (sha256=HMAC of the body)."))
      })
    })
