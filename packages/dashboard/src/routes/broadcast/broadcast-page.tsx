import { useCallback } from "react"
import { getBroadcast, listRecipients } from "../../api/broadcasts"
import { get } from "../../api/client"
import { bodyVariables } from "../../api/template-variables"
import type { Template } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { BroadcastStatusBadge, isLive } from "../broadcasts/broadcast-status"
import { AddRecipientsForm } from "./add-recipients-form"
import { BroadcastActions } from "./broadcast-actions"
import { Progress } from "./progress"
import { RecipientsTable } from "./recipients-table"
import { usePolling, useSettled } from "./use-polling"

const NO_VARIABLES = { names: [], named: false } as const

/**
 * One broadcast: its facts, what can be done in its state, recipients to add while it is
 * a draft or scheduled, and its progress by recipient state, polled every 2 s while it is
 * scheduled or sending and left alone once it is final.
 */
export const BroadcastPage = ({ id, location }: { id: string; location: Location }) => {
  const q = location.query
  const broadcast = useResource(() => getBroadcast(id), id)
  const recipientsQuery = { status: q.get("status") ?? undefined, after: q.get("after") ?? undefined, before: q.get("before") ?? undefined }
  const recipients = useResource(() => listRecipients(id, recipientsQuery), `${id}|${q.toString()}`)
  const b = broadcast.data
  const template = useResource(
    () => (b === undefined
      ? Promise.resolve(undefined)
      : get<ReadonlyArray<Template>>("/platform/v1/templates", { channel_id: b.platform_channel_id, name: b.template_name, language_code: b.language_code })
        .then((ts) => ts.find((t) => t.name === b.template_name && t.language_code === b.language_code))),
    b === undefined ? "" : `${b.platform_channel_id}|${b.template_name}|${b.language_code}`
  )
  const refresh = useCallback(() => {
    broadcast.reload()
    recipients.reload()
  }, [broadcast.reload, recipients.reload])
  const live = b !== undefined && isLive(b.status)
  usePolling(live, refresh)
  useSettled(live, recipients.reload)
  const variables = template.data === undefined ? NO_VARIABLES : bodyVariables(template.data)
  return (
    <>
      <p><Link to="/broadcasts">« All broadcasts</Link></p>
      <h1>{b?.name ?? `Broadcast ${id}`}</h1>
      <ErrorBox error={broadcast.error ?? recipients.error} />
      {broadcast.loading && b === undefined ? <Loading what="the broadcast" /> : null}
      {b !== undefined ? (
        <>
          <dl className="facts">
            <dt>State</dt><dd data-testid="broadcast-state"><BroadcastStatusBadge status={b.status} /></dd>
            <dt>Channel</dt><dd><Link to={`/channels/${b.platform_channel_id}`}>{b.platform_channel_id}</Link></dd>
            <dt>Template</dt><dd><code>{b.template_name}</code> ({b.language_code}){template.data ? <div className="muted">{template.data.body_text}</div> : null}</dd>
            <dt>Recipients</dt><dd data-testid="recipient-count">{b.recipient_count}</dd>
            <dt>Scheduled</dt><dd><Time iso={b.scheduled_at} empty="not scheduled" /></dd>
            <dt>Started</dt><dd><Time iso={b.started_at} empty="not started" /></dd>
            <dt>Completed</dt><dd><Time iso={b.completed_at} /></dd>
            <dt>Created</dt><dd><Time iso={b.created_at} /></dd>
          </dl>
          <div className="toolbar"><button type="button" onClick={refresh}>Refresh</button></div>
          {recipients.data !== undefined ? <Progress broadcast={b} counts={recipients.data.counts} /> : null}
          <BroadcastActions broadcast={b} onChanged={refresh} />
          {b.status === "draft" || b.status === "scheduled"
            ? <AddRecipientsForm broadcastId={b.id} variables={variables} onLoaded={refresh} />
            : null}
        </>
      ) : null}
      {recipients.loading && recipients.data === undefined ? <Loading what="recipients" /> : null}
      {recipients.data !== undefined ? <RecipientsTable location={location} page={recipients.data} /> : null}
    </>
  )
}
