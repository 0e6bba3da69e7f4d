import { dashboard } from "../../dashboard/session.js"
import { command, type CommandFactory } from "../util.js"

interface Billing {
  readonly plan: string
  readonly usage: { readonly period: string; readonly inbound_messages: number; readonly template_messages: number; readonly broadcasts: number; readonly channels: number }
  readonly limits: {
    readonly inbound_messages_per_month: number
    readonly template_messages_per_month: number
    readonly channels: number
    readonly broadcasts_enabled: boolean
    readonly broadcasts_per_month: number
    readonly broadcast_recipients_limit: number
  }
}

export const billing: CommandFactory = (ctx) =>
  command("billing", "The account's plan and this month's usage against its quotas (needs `platform login --email`)").action(async () => {
    const b = await dashboard<Billing>(ctx, "GET", "/platform/dashboard/billing")
    ctx.out.result(b, () => {
      ctx.out.line(`Plan ${ctx.out.c.bold(b.plan)}, usage for ${b.usage.period} (UTC):`)
      const share = (used: number, limit: number) => {
        const pct = limit > 0 ? Math.round((used / limit) * 100) : 100
        const text = `${pct}%`
        return pct >= 100 ? ctx.out.c.red(text) : pct >= 80 ? ctx.out.c.yellow(text) : text
      }
      const rows = [
        { quota: "inbound messages", used: b.usage.inbound_messages, limit: b.limits.inbound_messages_per_month },
        { quota: "template messages", used: b.usage.template_messages, limit: b.limits.template_messages_per_month },
        { quota: "channels", used: b.usage.channels, limit: b.limits.channels },
        ...(b.limits.broadcasts_enabled ? [{ quota: "broadcasts", used: b.usage.broadcasts, limit: b.limits.broadcasts_per_month }] : [])
      ]
      ctx.out.table(rows, [
        { header: "quota", value: (r) => r.quota },
        { header: "used", value: (r) => r.used.toLocaleString("en-US") },
        { header: "limit", value: (r) => r.limit.toLocaleString("en-US") },
        { header: "used %", value: (r) => share(r.used, r.limit) }
      ])
      if (!b.limits.broadcasts_enabled) ctx.out.info(ctx.out.ce.dim(`Broadcasts are not part of the ${b.plan} plan.`))
    })
  })
