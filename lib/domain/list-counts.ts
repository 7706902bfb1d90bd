// Kept totals of the unfiltered lists, so `total` never scans a developer's history. Two ways to keep one, by
// who writes the rows:
// - the jobs list and the credit history: moved by the statement that writes the rows, in its transaction.
//   One function per counter; each gives a statement that also works as a CTE of a bigger one (a statement
//   moves each counter row once: two CTEs upserting one row in one statement is undefined in PostgreSQL).
//   Every path that moves them locks the account's row first (the charge, the ledger entry), so their row
//   locks never wait in a cycle.
// - top-ups and webhook deliveries: written by many paths, some (job changes) before they lock the account, so
//   an upserted counter row would be locked in both orders. A trigger on each table (drizzle/0022) adds one row
//   to list_count_deltas per statement instead, in the writer's transaction and locking nothing; the total is
//   the counter plus the deltas not yet folded, and the sweeper folds them (foldListCountDeltas), so a read
//   sums at most a sweep interval's deltas.
import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { sqlLiterals } from "@/lib/db/prepared-statements";
import { listCountDeltas, listCounts } from "@/lib/db/schema";

type CountedList = (typeof listCounts.list.enumValues)[number];

/** Adds `n` of `counted` — a relation of (scope_id uuid, n bigint), one row per scope — to the scope's counter. */
function countedSql(list: CountedList, counted: SQL): SQL {
  return sql`insert into ${listCounts} (scope_id, list, count)
    select c.scope_id, ${sqlLiterals([list])}, c.n from (${counted}) c where c.n <> 0 order by c.scope_id
    on conflict (scope_id, list) do update set count = ${listCounts.count} + excluded.count`;
}

/** The developer's jobs: `added` created (negative: removed) by the same statement. */
export const countJobsSql = (accountId: SQL | Placeholder, added: SQL) =>
  countedSql("jobs", sql`select ${accountId}::uuid as scope_id, (${added})::bigint as n`);

/** The developer's credit ledger entries (the credit history): `added` appended by the same statement. */
export const countCreditEntriesSql = (accountId: SQL | Placeholder, added: SQL) =>
  countedSql("credit_entries", sql`select ${accountId}::uuid as scope_id, (${added})::bigint as n`);

/** A counter's value (0 before its first row), with its deltas not yet folded. */
export async function keptCount(d: Tx, scopeId: string, list: CountedList): Promise<number> {
  const kept = sql`(select ${listCounts.count} from ${listCounts} where ${and(eq(listCounts.scopeId, scopeId), eq(listCounts.list, list))})`;
  const unfolded = sql`(select sum(${listCountDeltas.n}) from ${listCountDeltas} where ${and(eq(listCountDeltas.scopeId, scopeId), eq(listCountDeltas.list, list))})`;
  const result = (await d.execute(
    sql`select (coalesce(${kept}, 0) + coalesce(${unfolded}, 0))::bigint as n`,
  )) as unknown as { rows: { n: string | number }[] };
  return Number(result.rows[0].n);
}

/**
 * Folds up to `batch` deltas into their counters in one statement (a reader sees the total before or after,
 * never half); returns how many it folded. Deltas another instance is folding are skipped, and counter rows
 * are upserted in key order, so two folds never wait on each other in a cycle; writers never touch the
 * counters these lists keep.
 */
export async function foldListCountDeltas(d: Tx, batch = 5000): Promise<number> {
  const result = (await d.execute(sql`
    with taken as (
      select id from ${listCountDeltas} order by id limit ${batch}::int for update skip locked
    ),
    folded as (
      delete from ${listCountDeltas} x using taken where x.id = taken.id returning x.scope_id, x.list, x.n
    ),
    summed as (
      insert into ${listCounts} (scope_id, list, count)
      select scope_id, list, sum(n) from folded group by scope_id, list order by scope_id, list
      on conflict (scope_id, list) do update set count = ${listCounts.count} + excluded.count
    )
    select count(*)::int as n from folded`)) as unknown as { rows: { n: number }[] };
  return Number(result.rows[0].n);
}
