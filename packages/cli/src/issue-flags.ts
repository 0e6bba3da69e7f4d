import type { Command } from "commander"

/** The flag each query parameter comes from, for the commands that send it (checked against the running command's options). */
const QUERY_FLAGS: Readonly<Record<string, string>> = {
  event_types: "--events",
  event_type: "--event-type",
  channel_id: "--channel",
  conversation_id: "--conversation",
  contact_id: "--contact",
  peer_id: "--peer",
  direction: "--direction",
  since: "--since",
  until: "--until",
  q: "--query",
  subscription_id: "--subscription",
  status: "--status",
  errors_only: "--errors-only",
  mode: "--mode",
  type: "--type",
  name: "--name",
  language_code: "--language",
  category: "--category",
  limit: "--limit",
  after: "--after",
  before: "--before"
}

/** The flag or argument each body field comes from, for the commands that send it. */
const BODY_FLAGS: Readonly<Record<string, string>> = {
  pin: "--pin",
  about: "--about",
  address: "--address",
  description: "--description",
  email: "--email",
  vertical: "--vertical",
  websites: "--website",
  profile_picture_handle: "--picture-handle",
  users: "<users>",
  display_name: "--display-name",
  contact_metadata: "--metadata",
  name: "--name",
  channel_id: "--channel",
  template_name: "--template",
  language_code: "--language",
  components: "--components",
  scheduled_at: "--at",
  category: "--category",
  body_text: "--body",
  variables: "--variables",
  parameter_format: "--parameter-format"
}

/** One 422 issue as the server reports it (SPEC §7). */
export interface IssueLike {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
}

/**
 * Where a 422 issue points, in the user's terms: a query parameter or body field the running command set from a flag
 * or argument is named by it (`query.event_types.1` of `--events a,b` is `--events value 2`, `body.users.0` of
 * `channels block 7 a b` is `<users> value 1`); a body field only when that flag gave it (templates create may take it
 * from --file); any other location is the API's path.
 */
export const issueLocation = (issue: IssueLike, command: Command | undefined): string => {
  const [where, name, ...rest] = issue.loc
  const table = where === "query" ? QUERY_FLAGS : where === "body" ? BODY_FLAGS : {}
  const flag = typeof name === "string" ? table[name] : undefined
  const given = flag !== undefined && command !== undefined && (
    flag.startsWith("<")
      ? command.registeredArguments.some((a) => `<${a.name()}>` === flag)
      : command.options.some((o) => o.long === flag && (where === "query" || command.getOptionValue(o.attributeName()) !== undefined))
  )
  if (!given) return issue.loc.join(".")
  const index = rest.length === 1 && typeof rest[0] === "number" ? ` value ${rest[0] + 1}` : rest.length > 0 ? ` (${rest.join(".")})` : ""
  return `${flag}${index}`
}
