import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { noQueryParams } from "../common.js"
import { Schema } from "effect"
import { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyPatch } from "../api-key.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { DashboardAuth, InputGuard } from "./security.js"

const KeyPath = Schema.Struct({ id: PathId("The API key's id") })

/** API keys of the account: the plaintext only in the creation response. */
export class DashboardApiKeysGroup extends HttpApiGroup.make("dashboardApiKeys")
  .add(
    HttpApiEndpoint.get("list", "/platform/dashboard/api-keys")
      .setUrlParams(noQueryParams)
      .addSuccess(Schema.Array(ApiKey))
      .annotate(OpenApi.Summary, "List the account's API keys (never their plaintext)")
  )
  .add(
    HttpApiEndpoint.post("create", "/platform/dashboard/api-keys")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Create an API key; its plaintext is in this response only")
      .setPayload(ApiKeyCreate)
      .addSuccess(ApiKeyCreated, { status: 201 })
      .addError(wire(ValidationFailed))
      .annotate(
        OpenApi.Description,
        "All 11 scopes unless `scopes` is given (then at least one); `expires_at`, when given, in the future; " +
          "`key` is shown this once."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/platform/dashboard/api-keys/:id")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Rename, deactivate, expire or re-limit an API key")
      .setPath(KeyPath)
      .setPayload(ApiKeyPatch)
      .addSuccess(ApiKey)
      .addError(wire(NotFound))
      .annotate(OpenApi.Description, "name, is_active, expires_at, rate_limit_per_minute; scopes are fixed at creation.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/platform/dashboard/api-keys/:id")
      .setUrlParams(noQueryParams)
      .annotate(OpenApi.Summary, "Delete an API key; requests with it are 401 from then on")
      .setPath(KeyPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(wire(NotFound))
  )
  .middleware(InputGuard)
  .middleware(DashboardAuth)
  .annotate(OpenApi.Title, "Dashboard: API keys")
  .annotate(OpenApi.Description, "Create, limit and revoke the account's API keys.")
{}
