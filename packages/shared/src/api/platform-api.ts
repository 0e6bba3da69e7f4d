import { HttpApi, OpenApi } from "@effect/platform"
import { HealthGroup } from "./health.js"

/**
 * The whole HTTP contract of the platform. The server implements it, the
 * OpenAPI document is generated from it, and the route/scope table test walks it.
 */
export class PlatformApi extends HttpApi.make("platform")
  .add(HealthGroup)
  .annotateContext(OpenApi.annotations({
    title: "Messaging Developer Platform API",
    version: "platform-v1",
    description: "Send and receive WhatsApp, Instagram and Messenger messages through one HTTP API."
  }))
{}
