// Pages of a list (CONTRACT §1's pagination, plus a cursor): by `page` (an offset) or by `after` (a cursor,
// one range read of an index in the list's order, the same cost at any depth). `hasMore` is exact (one row
// past the page is read); `total` comes from a kept counter (list-counts.ts) or a capped count.
import { and, asc, desc, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { encodeCursor, type CursorKey, type CursorList } from "@/lib/contract/list-cursor";
import type { Pagination } from "@/lib/contract/schemas";
import type { Tx } from "@/lib/db/database";
import { limits } from "@/lib/limits";

export interface PageRequest {
  page: number;
  limit: number;
}

export interface CursorPageRequest<L extends CursorList> extends PageRequest {
  after?: CursorKey<L>;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** A list's size: exact, or (a capped count that reached its cap) at least `count`. */
export interface Total {
  count: number;
  isLowerBound: boolean;
}

export const exactTotal = (n: number): Total => ({ count: n, isLowerBound: false });

/**
 * The rows of `table` matching `where`, counted up to limits.listCountCap and no further: a filtered list's
 * total, one bounded read of the index its filter uses whatever the account's history.
 */
export async function cappedTotal(d: Tx, table: SQL, where: SQL | undefined): Promise<Total> {
  const result = await d.execute(sql`select count(*)::int as n from (
    select 1 from ${table} where ${where ?? sql`true`} limit ${limits.listCountCap + 1}) capped`);
  const [{ n }] = (result as unknown as { rows: { n: number }[] }).rows;
  return n > limits.listCountCap ? { count: limits.listCountCap, isLowerBound: true } : exactTotal(n);
}

export const offsetOf = ({ page, limit }: PageRequest) => (page - 1) * limit;

/** How a list is ordered, for its cursor: its sort key, and the conditions before and after a key. */
export interface Keyset<L extends CursorList, Row> {
  list: L;
  /** The row's sort key, in the order cursorKeys[list] reads it. */
  keyOf(row: Row): (string | number | null | Date)[];
  /** The rows after `key` in the list's order. */
  after(key: CursorKey<L>): SQL;
  /** The rows at or before `key`: where the page before a cursor lies. */
  atOrBefore(key: CursorKey<L>): SQL;
  /** The sort key's values as `after` compares them (a subquery of keyAt's selects them). */
  columns: SQL;
  /** The rows after the one `row` names (a subquery selecting `columns` of one row; none: no rows). */
  afterRow(row: SQL): SQL;
}

/**
 * A page of a list: `read(where, reversed, limit, offset)` is the list's query (already scoped to its owner)
 * in its order (`reversed`: the opposite one), with `where` added; `keyAt(offset)` is a subquery of the sort key
 * of the row `offset` rows into the list (no row past its end), read from the list's index, building none of its
 * rows. With `after`, the page starts after that key, and `prevCursor` is read `limit` rows back the other way
 * (null: the page before is the first). A page by number past the first starts after the key of the row before
 * it, in the same statement, so the rows it skips cost an index entry each, not a row, and no round trip (the
 * schema keeps `page` within limits.listOffsetCap).
 */
export async function keysetPage<L extends CursorList, Row, Item>(
  keyset: Keyset<L, NoInfer<Row>>,
  request: CursorPageRequest<L>,
  read: (where: SQL | undefined, reversed: boolean, limit: number, offset: number) => Promise<Row[]>,
  keyAt: (offset: number) => SQL,
  present: (row: Row) => Item,
  total: Promise<Total>,
): Promise<Page<Item>> {
  const { after, limit } = request;
  const offset = after ? 0 : offsetOf(request);
  // A page by number past the list's end is empty: keyAt names no row, and no row follows it.
  const start = offset > 0 ? keyset.afterRow(keyAt(offset - 1)) : after && keyset.after(after);
  const [count, rows, [previous]] = await Promise.all([
    total,
    read(start, false, limit + 1, 0),
    after ? read(keyset.atOrBefore(after), true, 1, limit) : Promise.resolve([]),
  ]);
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  const cursorOf = (row: Row) => encodeCursor(keyset.list, keyset.keyOf(row));
  // A total that stopped counting is still at least what this page shows is there.
  const seen = after ? 0 : offset + shown.length + (hasMore ? 1 : 0);
  const size = count.isLowerBound ? Math.max(count.count, seen) : count.count;
  return {
    data: shown.map(present),
    pagination: {
      page: request.page,
      limit,
      total: size,
      totalPages: Math.ceil(size / limit),
      hasMore,
      totalIsLowerBound: count.isLowerBound,
      nextCursor: hasMore && last ? cursorOf(last) : null,
      prevCursor: previous ? cursorOf(previous) : null,
    },
  };
}

/**
 * A list's order: the columns of its sort key, by the names cursorKeys[list] gives them and in the list's order,
 * all descending (newest first) or all ascending. (PostgreSQL puts nulls first in a descending order and last in
 * an ascending one, the order of a nullable key column in both directions.)
 */
export interface ListOrder<L extends CursorList> {
  key: { [N in keyof CursorKey<L>]: PgColumn };
  descending: boolean;
}

/** The ORDER BY of a list (`reversed`: the opposite direction, where the page before a cursor lies). */
export const orderOf = <L extends CursorList>({ key, descending }: ListOrder<L>, reversed: boolean): SQL[] =>
  Object.values<PgColumn>(key).map((column) => (descending !== reversed ? desc(column) : asc(column)));

/**
 * The reads keysetPage takes, for a list of `table`'s rows matching `where` (its owner's) in `order`: `read`,
 * its rows (`after` added to `where`), and `keyAt`, a subquery of the sort key (`keyset.columns`) of the row
 * `offset` rows into it (none past its end), its key's columns only, which an index in the list's order gives
 * without building a row (an index-only scan where it holds them all). A list that reads more than its table's
 * columns (the jobs list's node) passes its own `read` and takes `keyAt` from here.
 */
export function listReads<L extends CursorList, Row>(
  d: Tx,
  table: PgTable,
  where: SQL | undefined,
  order: ListOrder<L>,
  keyset: Pick<Keyset<L, Row>, "columns">,
) {
  return {
    read: (after: SQL | undefined, reversed: boolean, limit: number, offset: number) =>
      d
        .select()
        .from(table)
        .where(and(where, after))
        .orderBy(...orderOf(order, reversed))
        .limit(limit)
        .offset(offset) as unknown as Promise<Row[]>,
    // The table's own name inside the subquery names its rows, not the outer query's.
    keyAt: (offset: number) =>
      sql`select ${keyset.columns} from ${table} where ${where ?? sql`true`}
        order by ${sql.join(orderOf(order, false), sql`, `)} limit 1 offset ${offset}`,
  };
}

/**
 * The keyset of a list ordered by `columns` descending (newest first), as a row comparison PostgreSQL reads
 * as one range of an index on (owner, …columns); `keySql` gives a key's values in the same order.
 */
export function descendingKeyset<L extends CursorList, Row>(
  list: L,
  columns: SQL,
  keyOf: Keyset<L, Row>["keyOf"],
  keySql: (key: CursorKey<L>) => SQL,
): Keyset<L, Row> {
  return {
    list,
    keyOf,
    columns,
    after: (key) => sql`(${columns}) < (${keySql(key)})`,
    atOrBefore: (key) => sql`(${columns}) >= (${keySql(key)})`,
    afterRow: (row) => sql`(${columns}) < (${row})`,
  };
}

/** A cursor's time as a query parameter (drivers differ on Date parameters; ISO text is exact at ms). */
export const timeParam = (at: Date) => sql`${at.toISOString()}::timestamptz`;
