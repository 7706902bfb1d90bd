// Kept totals of the unfiltered lists, so `total` never scans a developer's history. A counter (list_counts)
// plus the changes not yet folded into it (list_count_deltas): a writer only appends a delta, in its transaction
// and locking nothing, and the sweeper folds them (foldListCountDeltas), so a read sums at most a sweep
// interval's deltas. Two ways to append one, by who writes the rows:
// - the jobs list and the credit history: the statement that writes the rows appends its deltas (countedSql,
//   with jobsCounted and creditEntriesCounted: a statement that also works as a CTE of a bigger one);
// - top-ups and webhook deliveries, written by many paths: a trigger on each table (drizzle/0022) appends one
//   per statement.
import { and, eq, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { executeShaped, sqlLiterals } from "@/lib/db/prepared-statements";
import { listCountDeltas, listCounts } from "@/lib/db/schema";

type CountedList = (typeof listCounts.list.enumValues)[number];

/** One change to a kept total: `added` (a bigint expression of the same statement; negative: removed) to `list`'s counter of `scope`. */
type CountedChange = [list: CountedList, scope: SQL | Placeholder, added: SQL];

/** Appends the changes that are not 0, one delta row each, in one insert (a statement, or a CTE of a bigger one). */
export function countedSql(...changes: CountedChange[]): SQL {
  const rows = changes.map(([list, scope, added]) => sql`(${scope}::uuid, ${sqlLiterals([list])}, (${added})::bigint)`);
  return sql`insert into ${listCountDeltas} (scope_id, list, n)
    select c.scope_id, c.list, c.n from (values ${sql.join(rows, sql`, `)}) c(scope_id, list, n) where c.n <> 0`;
}

/** The developer's jobs: `added` created (negative: removed) by the same statement. */
export const jobsCounted = (accountId: SQL | Placeholder, added: SQL): CountedChange => ["jobs", accountId, added];

/** The developer's credit ledger entries (the credit history): `added` appended by the same statement. */
export const creditEntriesCounted = (accountId: SQL | Placeholder, added: SQL): CountedChange => [
  "credit_entries",
  accountId,
  added,
];

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
 * counters.
 */
export async function foldListCountDeltas(d: Tx, batch = 5000): Promise<number> {
  const [row] = await executeShaped<{ n: number }>(d, "list_count_fold", "", listCountFold, { batch });
  return Number(row.n);
}

const listCountFold = () => sql`
    with taken as (
      select id from ${listCountDeltas} order by id limit ${sql.placeholder("batch")}::int for update skip locked
    ),
    folded as (
      delete from ${listCountDeltas} x using taken where x.id = taken.id returning x.scope_id, x.list, x.n
    ),
    summed as (
      insert into ${listCounts} (scope_id, list, count)
      select scope_id, list, sum(n) from folded group by scope_id, list order by scope_id, list
      on conflict (scope_id, list) do update set count = ${listCounts.count} + excluded.count
    )
    select count(*)::int as n from folded`;
