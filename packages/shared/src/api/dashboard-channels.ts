import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams } from "../common.js"
import { Schema } from "effect"
import { ChannelWebhook, ChannelWebhookUpdate, Conflict, ConnectChat, ConnectSocial, DashboardChannel } from "../account.js"
import { BadRequest, NotFound, PlanForbidden, UpstreamFailure, ValidationFailed, wire } from "../errors.js"
import { SandboxInbound, SandboxInboundAccepted } from "../sandbox.js"
import { PathId } from "./path-id.js"
import { DashboardAuth, InputGuard } from "./security.js"

const ChannelPath = Schema.Struct({ id: PathId("The channel's id") })

/** Channel connect (embedded signup, OAuth), disconnect, raw-forward configuration and sandbox inbound injection. */
export class DashboardChannelsGroup extends HttpApiGroup.make("dashboardChannels")
  .add(
    HttpApiEndpoint.get("list", "/platform/dashboard/channels")
      .setUrlParams(noQueryParams)
      .addSuccess(Schema.Array(DashboardChannel))
      .annotate(OpenApi.Summary, "List the account's channels with their raw-forward settings")
  )
  .add(
    HttpApiEndpoint.post("connectChat", "/platform/dashboard/channels/connect/chat")
      .setUrlParams(noQueryParams)
      .setPayload(ConnectChat)
      .addSuccess(DashboardChannel, { status: 201 })
      .addError(wire(PlanForbidden))
      .addError(wire(Conflict))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Connect a chat channel: exchange the embedded-signup code")
  )
  .add(
    HttpApiEndpoint.post("connectSocial", "/platform/dashboard/channels/connect/social")
      .setUrlParams(noQueryParams)
      .setPayload(ConnectSocial)
      .addSuccess(DashboardChannel, { status: 201 })
      .addError(wire(PlanForbidden))
      .addError(wire(Conflict))
      .addError(wire(BadRequest))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Connect a social channel: exchange the OAuth code")
  )
  .add(
    HttpApiEndpoint.del("disconnect", "/platform/dashboard/channels/:id")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Disconnect a channel")
      .setPath(ChannelPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(wire(NotFound))
  )
  .add(
    HttpApiEndpoint.patch("webhook", "/platform/dashboard/channels/:id/webhook")
      .setUrlParams(noQueryParams)
      .setPath(ChannelPath)
      .setPayload(ChannelWebhookUpdate)
      .addSuccess(ChannelWebhook)
      .addError(wire(NotFound))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "Configure raw forward: HTTPS URL (SSRF-checked); the secret is shown once")
  )
  .add(
    HttpApiEndpoint.post("sandboxInbound", "/platform/dashboard/sandbox/inbound")
      .setUrlParams(noQueryParams)
      .setPayload(SandboxInbound)
      .addSuccess(SandboxInboundAccepted, { status: 202 })
      .addError(wire(NotFound))
      .addError(wire(ValidationFailed))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Sandbox upstream only: inject an inbound message as the upstream would post it")
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: channels")
  .annotate(OpenApi.Description, "Connect and disconnect channels, configure raw forward, and (sandbox upstream) inject inbound messages.")
{}
