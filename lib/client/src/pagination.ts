// One page type for every list: await it for one page, or `for await` over it for every item of every page.
import type { Page } from "./types.js";

/**
 * A list call. `await client.listJobs()` gives the first page (as in 0.1.0); `for await (const job of
 * client.listJobs())` walks every item from that page on, page after page, skipping items a shifting list
 * shows twice. The first page is requested at once and shared by both uses.
 */
export class PagePromise<Item, P extends Page<Item> = Page<Item>> implements Promise<P>, AsyncIterable<Item> {
  readonly #firstPage: number;
  readonly #fetchPage: (page: number) => Promise<P>;
  readonly #keyOf: (item: Item) => string;
  readonly #first: Promise<P>;

  /** @internal */
  constructor(firstPage: number, fetchPage: (page: number) => Promise<P>, keyOf: (item: Item) => string) {
    this.#firstPage = firstPage;
    this.#fetchPage = fetchPage;
    this.#keyOf = keyOf;
    this.#first = fetchPage(firstPage);
  }

  get [Symbol.toStringTag]() {
    return "PagePromise";
  }

  then<A = P, B = never>(onFulfilled?: ((page: P) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#first.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#first.catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#first.finally(onFinally);
  }

  [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    return paginate(this.#firstPage, (page) => (page === this.#firstPage ? this.#first : this.#fetchPage(page)), this.#keyOf);
  }
}

/** Items of consecutive pages until `hasMore` is false; skips items a shifting list shows twice. */
export async function* paginate<T>(firstPage: number, fetchPage: (page: number) => Promise<Page<T>>, keyOf: (item: T) => string): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  for (let page = firstPage; ; page++) {
    const { data, pagination } = await fetchPage(page);
    for (const item of data) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      yield item;
    }
    if (!pagination.hasMore || data.length === 0) return;
  }
}
