import * as HttpApi from "@effect/platform/HttpApi"
import { Context, Option } from "effect"
import type { Scope } from "../scopes.js"
import { ApiKeyAuth, CookieAllowed, RequiredScope } from "./security.js"

export interface RouteSecurity {
  readonly method: string
  readonly path: string
  readonly scope: Scope | null
  readonly cookie: boolean
}

/**
 * The one route → {scope, cookie} table of `/platform/v1` (SPEC §5.3, §5.4), read
 * from the annotations of an HttpApi: every endpoint behind `ApiKeyAuth` with its
 * `RequiredScope` and `CookieAllowed`. A route without a scope is kept with
 * `scope: null`; the server's middleware refuses it and its route-table test fails on it.
 * The OpenAPI document states the same table per operation (openapi-document.ts).
 */
export const routeTable = (api: HttpApi.HttpApi.Any): ReadonlyArray<RouteSecurity> => {
  const out: Array<RouteSecurity> = []
  HttpApi.reflect(api as unknown as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations, middleware }) => {
      if (!middleware.has(ApiKeyAuth as never)) return
      out.push({
        method: endpoint.method,
        path: endpoint.path,
        scope: Option.getOrNull(Context.getOption(mergedAnnotations, RequiredScope)),
        cookie: Option.getOrElse(Context.getOption(mergedAnnotations, CookieAllowed), () => false)
      })
    }
  })
  return out
}

export const routeKey = (method: string, path: string) => `${method} ${path}`
