import type { CursorPage, PagePromise } from "@platform/sdk"
import type { Command } from "commander"
import type { Context } from "../context.js"

/** Adds the paging options of a list command (--after, --before, --all) and says what its --json prints. */
export const pageOptions = (cmd: Command): Command =>
  cmd
    .option("--after <cursor>", "the page after this cursor (older rows): a list's next_cursor")
    .option("--before <cursor>", "the rows before this cursor (newer rows), nearest first")
    .option("--all", "fetch every page from there on")
    .addHelpText("after", `\n${LIST_JSON}\n`)

/** What every paged list prints with --json, as its help says. */
export const LIST_JSON =
  "With --json: the API's list object {data, has_more, next_cursor} (next_cursor null when there is no more or with --all)."

/** The cursor fields of the parsed options, for the list call. */
export const cursors = (o: Record<string, unknown>): { after?: string; before?: string } => ({
  ...(typeof o.after === "string" ? { after: o.after } : {}),
  ...(typeof o.before === "string" ? { before: o.before } : {})
})

/** What a list command prints: the rows, and where the next page starts (null when there is none or every page was read). */
export interface Listed<T> {
  readonly data: ReadonlyArray<T>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/** Loads one page, or with --all every page from the first, behind the spinner. */
export const loadPages = async <T, P extends CursorPage<T>>(ctx: Context, pages: PagePromise<T, P>, all: boolean): Promise<Listed<T> & { readonly first: P }> => {
  const first = await ctx.out.spin("Loading", Promise.resolve(pages))
  if (!all) return { first, data: first.data, has_more: first.hasNextPage(), next_cursor: first.hasNextPage() ? first.next_cursor : null }
  const data: T[] = []
  for await (const page of first.iterPages()) data.push(...page.data)
  return { first, data, has_more: false, next_cursor: null }
}

/** On stderr, how to get the next page: the same command with the cursor in the list's direction, or --all. */
export const moreHint = (ctx: Context, noun: string, listed: Listed<unknown>, o: Record<string, unknown>): void => {
  if (!listed.has_more || listed.next_cursor === null) return
  const flag = o.before !== undefined && o.after === undefined ? "--before" : "--after"
  ctx.out.info(ctx.out.ce.dim(`More ${noun}: add ${flag} ${listed.next_cursor} for the next page, or --all for every page.`))
}
