import { NoNextPageError } from "./errors.js"
import type { RequestOptions } from "./request.js"

/** The list envelope of every paginated route: `{data, has_more, next_cursor}`. */
export interface PageBody<T> {
  readonly data: ReadonlyArray<T>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/** Loads the page that goes on from a page's `next_cursor` (undefined for the first page). */
export type PageLoader<T, P extends CursorPage<T>> = (cursor: string | undefined, options?: RequestOptions) => Promise<P>

/** One page of a cursor-paginated list; `for await` over it walks this page and every later one. */
export class CursorPage<T> implements AsyncIterable<T> {
  /** The items of this page, newest first. */
  readonly data: ReadonlyArray<T>
  /** Whether a next page exists (older rows, or newer ones for a list asked with `before` only). */
  readonly has_more: boolean
  /** The cursor of the next page, or null on the last page. */
  readonly next_cursor: string | null
  readonly #load: PageLoader<T, this>

  constructor(body: PageBody<T>, load: PageLoader<T, CursorPage<T>>) {
    this.data = body.data
    this.has_more = body.has_more
    this.next_cursor = body.next_cursor
    this.#load = load as PageLoader<T, this>
  }

  /** Whether `getNextPage()` has a page to return. */
  hasNextPage(): boolean {
    return this.has_more && this.next_cursor !== null
  }

  /** Fetches the next page; throws NoNextPageError when there is none (check `hasNextPage()` first). */
  async getNextPage(options?: RequestOptions): Promise<this> {
    if (!this.hasNextPage()) throw new NoNextPageError()
    return this.#load(this.next_cursor ?? undefined, options)
  }

  /** Iterates over this page and every later page. */
  async *iterPages(): AsyncGenerator<this> {
    let page: this = this
    yield page
    while (page.hasNextPage()) {
      page = await page.getNextPage()
      yield page
    }
  }

  /** Iterates over every item of this page and of every later page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.iterPages()) yield* page.data
  }
}

/** The result of a list method: `await` it for the first page, or `for await` it for every item across pages. */
export class PagePromise<T, P extends CursorPage<T> = CursorPage<T>> implements PromiseLike<P>, AsyncIterable<T> {
  readonly #start: () => Promise<P>
  #promise: Promise<P> | undefined

  constructor(start: () => Promise<P>) {
    this.#start = start
  }

  #page(): Promise<P> {
    this.#promise ??= this.#start()
    return this.#promise
  }

  then<A = P, B = never>(
    onfulfilled?: ((value: P) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null
  ): Promise<A | B> {
    return this.#page().then(onfulfilled, onrejected)
  }

  /** Handles a failure of the first page. */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#page().catch(onrejected)
  }

  /** Runs a callback once the first page settles. */
  finally(onfinally?: (() => void) | null): Promise<P> {
    return this.#page().finally(onfinally)
  }

  /** Iterates over every item of every page, fetching pages by cursor as needed. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    const page = await this.#page()
    yield* page
  }

  get [Symbol.toStringTag](): string {
    return "PagePromise"
  }
}
