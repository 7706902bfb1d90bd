// One page type for every list: await it for one page, or `for await` over it for every item of every page.
import type { Page } from "./types.js";

/**
 * A list call. `await client.listJobs()` gives one page (as in 0.1.0); `for await (const job of
 * client.listJobs())` walks every item from that page on, page after page, skipping items a shifting list
 * shows twice. The request goes out when the page is first awaited (or iterated), once.
 */
export class PagePromise<Item, P extends Page<Item> = Page<Item>> implements Promise<P>, AsyncIterable<Item> {
  readonly #requestedPage: number | undefined;
  readonly #fetchPage: (page: number | undefined) => Promise<P>;
  readonly #keyOf: (item: Item) => string;
  #first: Promise<P> | undefined;

  /** @internal `fetchPage(undefined)` asks for the server's default page. */
  constructor(
    requestedPage: number | undefined,
    fetchPage: (page: number | undefined) => Promise<P>,
    keyOf: (item: Item) => string,
  ) {
    this.#requestedPage = requestedPage;
    this.#fetchPage = fetchPage;
    this.#keyOf = keyOf;
  }

  get [Symbol.toStringTag]() {
    return "PagePromise";
  }

  #page(): Promise<P> {
    return (this.#first ??= this.#fetchPage(this.#requestedPage));
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
    // Pages are requested by number; an already awaited first page is not requested again.
    const first = this.#requestedPage ?? 1;
    const reuse = this.#requestedPage !== undefined ? this.#first : undefined;
    return paginate(first, (page) => (page === first && reuse ? reuse : this.#fetchPage(page)), this.#keyOf);
  }
}

/** Items of consecutive pages until `hasMore` is false; skips items a shifting list shows twice. */
export async function* paginate<T>(
  firstPage: number,
  fetchPage: (page: number) => Promise<Page<T>>,
  keyOf: (item: T) => string,
): AsyncGenerator<T, void, undefined> {
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
