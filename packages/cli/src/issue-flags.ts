import type { Command } from "commander"

/** The flag each query parameter comes from, for the commands that send it (checked against the running command's options). */
const QUERY_FLAGS: Readonly<Record<string, string>> = {
  event_types: "--events",
  event_type: "--event-type",
  channel_id: "--channel",
  subscription_id: "--subscription",
  status: "--status",
  errors_only: "--errors-only",
  mode: "--mode",
  type: "--type",
  limit: "--limit",
  after: "--after",
  before: "--before"
}

/** One 422 issue as the server reports it (SPEC §7). */
export interface IssueLike {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
}

/**
 * Where a 422 issue points, in the user's terms: a query parameter the running command set from a flag is named by
 * that flag (`query.event_types.1` of `--events a,b` is `--events value 2`); any other location is the API's path.
 */
export const issueLocation = (issue: IssueLike, command: Command | undefined): string => {
  const [where, name, ...rest] = issue.loc
  const flag = where === "query" && typeof name === "string" ? QUERY_FLAGS[name] : undefined
  if (flag === undefined || command === undefined || !command.options.some((o) => o.long === flag)) return issue.loc.join(".")
  const index = rest.length === 1 && typeof rest[0] === "number" ? ` value ${rest[0] + 1}` : rest.length > 0 ? ` (${rest.join(".")})` : ""
  return `${flag}${index}`
}
