// One page type for every list: await it for one page, or `for await` over it for every item of every page.
import type { Page } from "./types.js";

/** Where a page starts: a page number (an offset), or `after` a cursor the list returned (`nextCursor`). */
export interface PageAt {
  page?: number;
  after?: string;
}

/** A list's query for the page `at`: the caller's parameters (limit…), the page's own place instead of theirs. */
export const pageQuery = ({ ...params }: { page?: number; limit?: number; after?: string }, at: PageAt) => ({
  ...params,
  page: at.page,
  after: at.after,
});

/**
 * A list call. `await client.listJobs()` gives one page (as in 0.1.0); `for await (const job of
 * client.listJobs())` walks every item from that page on, each next page read after the last one's
 * `pagination.nextCursor` (the same cost at any depth, and rows inserted meanwhile neither skipped nor
 * repeated). The request goes out when the page is first awaited (or iterated), once.
 */
export class PagePromise<Item, P extends Page<Item> = Page<Item>> implements Promise<P>, AsyncIterable<Item> {
  readonly #requested: PageAt;
  readonly #fetchPage: (at: PageAt) => Promise<P>;
  readonly #keyOf: (item: Item) => string;
  #first: Promise<P> | undefined;

  /** @internal `fetchPage({})` asks for the server's default page. */
  constructor(requested: PageAt, fetchPage: (at: PageAt) => Promise<P>, keyOf: (item: Item) => string) {
    this.#requested = requested;
    this.#fetchPage = fetchPage;
    this.#keyOf = keyOf;
  }

  get [Symbol.toStringTag]() {
    return "PagePromise";
  }

  #page(): Promise<P> {
    return (this.#first ??= this.#fetchPage(this.#requested));
  }

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#page().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#page().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#page().finally(onFinally);
  }

  [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    // An already awaited first page is not requested again.
    const { page = 1, after } = this.#requested;
    const first = this.#first ?? this.#fetchPage(after ? this.#requested : { page });
    return paginate(first, this.#fetchPage, this.#keyOf, page);
  }
}

/**
 * Items of consecutive pages until `hasMore` is false: each next page after the last one's `nextCursor`, or
 * by number from a server without cursors; skips items a shifting list (pages by number) shows twice.
 */
export async function* paginate<T>(
  first: Promise<Page<T>>,
  fetchPage: (at: PageAt) => Promise<Page<T>>,
  keyOf: (item: T) => string,
  firstPage = 1,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  for (let page = firstPage, next = first; ; page++) {
    const { data, pagination } = await next;
    for (const item of data) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      yield item;
    }
    if (!pagination.hasMore || data.length === 0) return;
    next = fetchPage(pagination.nextCursor ? { after: pagination.nextCursor } : { page: page + 1 });
  }
}

/** A page of a list paged by cursor: its items, and whether more follow the last of them. */
export interface CursorPage<Item> {
  items: Item[];
  hasMore: boolean;
}

/**
 * A list paged by a cursor (a job's log, by sequence). `await` it for one page (an array, as the route
 * answers); `for await` over it for every item from there on, each next page read after the last item's
 * cursor. The first request goes out when the page is first awaited (or iterated), once.
 */
export class CursorPagePromise<Item> implements Promise<Item[]>, AsyncIterable<Item> {
  readonly #fetchPage: (after: number | undefined) => Promise<CursorPage<Item>>;
  readonly #cursorOf: (item: Item) => number;
  #first: Promise<CursorPage<Item>> | undefined;

  /** @internal `fetchPage(undefined)` asks for the page the caller asked for (its own `after`, if any). */
  constructor(fetchPage: (after: number | undefined) => Promise<CursorPage<Item>>, cursorOf: (item: Item) => number) {
    this.#fetchPage = fetchPage;
    this.#cursorOf = cursorOf;
  }

  get [Symbol.toStringTag]() {
    return "CursorPagePromise";
  }

  #page(): Promise<CursorPage<Item>> {
    return (this.#first ??= this.#fetchPage(undefined));
  }

  then<A = Item[], B = never>(
    onFulfilled?: ((items: Item[]) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#page()
      .then((page) => page.items)
      .then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Item[] | B> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Item[]> {
    return this.then().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for (let page = await this.#page(); ;) {
      yield* page.items;
      const last = page.items.at(-1);
      // A server that answers without the header (before pages) sent the whole list.
      if (!page.hasMore || last === undefined) return;
      page = await this.#fetchPage(this.#cursorOf(last));
    }
  }
}
