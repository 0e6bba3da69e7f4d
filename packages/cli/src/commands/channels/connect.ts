import { confirm } from "../../confirm.js"
import { usage } from "../../context.js"
import { dashboard, isSandbox } from "../../dashboard/session.js"
import { command, defined, int, type CommandFactory } from "../util.js"

/** A connected channel as the dashboard answers it. */
export interface DashboardChannel {
  readonly channel_id: number
  readonly type: string
  readonly name?: string | null
  readonly status?: string
  readonly phone_number_id: string | null
  readonly waba_id: string | null
  readonly social_id: string | null
  readonly webhook_url: string | null
  readonly has_webhook_secret: boolean
}

/** Fresh upstream ids for a sandbox number (the simulator accepts any; each connect is then a new number). */
const sandboxIds = () => {
  const phone = String(100000000000000 + Math.floor(Math.random() * 1e12))
  return { code: "sandbox-code", phone_number_id: phone, waba_id: `WABA${phone}` }
}

export const channelsConnect: CommandFactory = (ctx) =>
  command("connect", "Connect a channel (needs `platform login --email`); against the sandbox upstream every field is pre-filled")
    .option("--social", "connect a social (Instagram) channel instead of a chat (WhatsApp) one")
    .option("--code <code>", "the embedded-signup (chat) or OAuth (social) code")
    .option("--phone-number-id <id>", "chat: the phone number id from the embedded signup")
    .option("--waba-id <id>", "chat: the WhatsApp Business Account id")
    .option("--pin <pin>", "chat: the number's two-step verification PIN (6 digits; random when omitted)")
    .option("--redirect-uri <uri>", "social: the OAuth dialog's redirect_uri")
    .addHelpText("after", "\nAgainst the sandbox upstream (`npm start`), `platform channels connect` alone connects a new sandbox number.\n")
    .action(async (o: { social?: boolean; code?: string; phoneNumberId?: string; wabaId?: string; pin?: string; redirectUri?: string }) => {
      const sandbox = await isSandbox(ctx)
      let path: string
      let body: Record<string, unknown>
      if (o.social === true) {
        path = "/platform/dashboard/channels/connect/social"
        const code = o.code ?? (sandbox ? "sandbox-code" : undefined)
        const redirect = o.redirectUri ?? (sandbox ? "https://localhost/oauth/callback" : undefined)
        if (code === undefined || redirect === undefined) throw usage("A social connect against the real upstream needs --code and --redirect-uri (from the OAuth dialog).")
        body = { code, redirect_uri: redirect }
      } else {
        path = "/platform/dashboard/channels/connect/chat"
        const filled = sandbox ? sandboxIds() : undefined
        const code = o.code ?? filled?.code
        const phone = o.phoneNumberId ?? filled?.phone_number_id
        const waba = o.wabaId ?? (o.phoneNumberId !== undefined && sandbox ? `WABA${o.phoneNumberId}` : filled?.waba_id)
        if (code === undefined || phone === undefined || waba === undefined) {
          throw usage("A chat connect against the real upstream needs --code, --phone-number-id and --waba-id (from the embedded signup).")
        }
        body = defined({ code, phone_number_id: phone, waba_id: waba, pin: o.pin })
      }
      const channel = await dashboard<DashboardChannel>(ctx, "POST", path, body)
      ctx.out.result(channel, () => {
        ctx.out.line(`${ctx.out.c.green("✓")} Connected ${channel.type} channel ${ctx.out.c.bold(String(channel.channel_id))}${sandbox ? " (sandbox)" : ""}`)
        ctx.out.fields([
          ["channel id", channel.channel_id],
          ["type", channel.type],
          ["phone number id", channel.phone_number_id],
          ["waba id", channel.waba_id],
          ["social id", channel.social_id]
        ])
      })
    })

export const channelsDisconnect: CommandFactory = (ctx) =>
  command("disconnect", "Disconnect a channel (needs `platform login --email`); asks first unless --yes")
    .argument("<channel-id>", "the channel", int)
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (id: number, o: { yes?: boolean }) => {
      await confirm(ctx, `Disconnect channel ${id}? It stops sending and receiving messages.`, o.yes === true)
      await dashboard(ctx, "DELETE", `/platform/dashboard/channels/${id}`)
      ctx.out.result({ channel_id: id, disconnected: true }, () => ctx.out.line(`${ctx.out.c.green("✓")} Disconnected channel ${id}`))
    })
