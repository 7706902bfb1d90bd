// Where a page of a list is, for links and buttons: its number (what the pager shows) and the cursor it
// starts after. Pages past the first are reached by cursor, so page 5,000 costs what page 1 costs.
import type { Pagination } from "@/components/data/types";

/** Where a page is: its number (what the pager shows) and the cursor it starts after (none: the first page). */
export interface PageLink {
  page: number;
  after?: string;
}

/** The page after this one: after its last row's cursor. */
export const nextPageOf = ({ page, nextCursor }: Pagination): PageLink => ({
  page: page + 1,
  ...(nextCursor ? { after: nextCursor } : {}),
});

/**
 * The page before this one: after its `prevCursor`; without one, by number (the first page, or a page read by
 * number, whose neighbours are too).
 */
export const previousPageOf = ({ page, prevCursor }: Pagination): PageLink => ({
  page: Math.max(page - 1, 1),
  ...(prevCursor ? { after: prevCursor } : {}),
});

/** A URL query's page and cursor, read leniently (a cursor the API refuses shows an error with a way back). */
export function pageLinkFrom(page: string | undefined, after: string | undefined): PageLink {
  const n = Number(page);
  const cursor = after && /^[A-Za-z0-9_-]{1,400}$/.test(after) ? after : undefined;
  return { page: Number.isInteger(n) && n >= 1 ? n : 1, ...(cursor ? { after: cursor } : {}) };
}

/** `page` and `after` as URL query members (the first page has neither). */
export function pageLinkQuery({ page, after }: PageLink): Record<string, string> {
  return { ...(page > 1 ? { page: String(page) } : {}), ...(after ? { after } : {}) };
}
