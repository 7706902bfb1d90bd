// Kept totals of the unfiltered lists (the jobs list, the credit history): moved by the statement that writes
// the rows they count, in its transaction, so `total` is one primary-key read. One function per counter; each
// gives a statement that also works as a CTE of a bigger one (a statement moves each counter row once: two
// CTEs upserting one row in one statement is undefined in PostgreSQL). Every path that moves them locks the
// account's row first (the charge, the ledger entry), so their row locks never wait in a cycle.
import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { sqlLiterals } from "@/lib/db/prepared-statements";
import { listCounts } from "@/lib/db/schema";

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

/** A counter's value (0 before its first row). */
export async function keptCount(d: Tx, scopeId: string, list: CountedList): Promise<number> {
  const [row] = await d
    .select({ count: listCounts.count })
    .from(listCounts)
    .where(and(eq(listCounts.scopeId, scopeId), eq(listCounts.list, list)));
  return row?.count ?? 0;
}
