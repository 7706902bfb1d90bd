// UsageSummary (CONTRACT §6): job counts, credits used (charges minus refunds), durations, by service, by day,
// and by API key (§11). Read from the usage rollups (usage-rollups.ts) for the whole UTC hours of the period, and
// from the jobs and ledger rows themselves for a partial hour at its start or end (an index range each), so the
// period's bounds are exact to the millisecond and a read costs the same whatever the developer's history. A
// period ending at or after now reads its last hour from the rollups too (that hour's rollup holds exactly what
// happened up to now), and the default period starts on a UTC hour, so the default summary reads rollups only.
// avgDurationMs is exact; p95DurationMs is read from log-scale buckets, within 2.5 % (or 1 ms) of the exact one.
import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type { Tx } from "@/lib/db/database";
import { preparedPerDatabase } from "@/lib/db/prepared-statements";
import { apiKeys, creditLedger, jobs, usageRollups } from "@/lib/db/schema";
import { db } from "./database";
import { spendNow } from "./spend-controls";
import { bucketValueMs, durationBucketSql, durationMsSql, noKeyId, noKeySql } from "./usage-rollups";
import type { UsageSummary } from "@/lib/contract/schemas";

const hourMs = 3600 * 1000;
const dayMs = 24 * hourMs;
const int = (v: unknown) => Number(v ?? 0);

interface Counts {
  jobs: number;
  completed: number;
  failed: number;
  charged: number;
  refunded: number;
  durationCount: number;
  durationSumMs: number;
}
type CountsRow = { [K in keyof Counts]: unknown } & { date: string; serviceId: string; keyId: string };

const zero = (): Counts => ({
  jobs: 0,
  completed: 0,
  failed: 0,
  charged: 0,
  refunded: 0,
  durationCount: 0,
  durationSumMs: 0,
});

/** Sums of counts per grouping key (a date, a service, a key). */
class Tally<K> {
  readonly rows = new Map<K, Counts>();
  add(key: K, row: CountsRow): void {
    let counts = this.rows.get(key);
    if (!counts) this.rows.set(key, (counts = zero()));
    for (const field of Object.keys(counts) as (keyof Counts)[]) counts[field] += int(row[field]);
  }
}

/**
 * The whole UTC hours inside [start, end] (end inclusive, to the millisecond) as [from, to), and the partial ones
 * around them: [start, from) and [to, end]. With no whole hour, all of the period is partial.
 */
function splitPeriod(start: Date, end: Date, now: Date) {
  const endExclusive = end.getTime() + 1;
  let from = Math.ceil(start.getTime() / hourMs) * hourMs;
  // Nothing has happened after now: a period ending at or after now takes its last hour whole from the rollups.
  let to = (end >= now ? Math.ceil : Math.floor)(endExclusive / hourMs) * hourMs;
  if (from >= to) from = to = endExclusive;
  return {
    start,
    from: new Date(from),
    to: new Date(Math.min(to, endExclusive)),
    endExclusive: new Date(endExclusive),
    rollupsTo: new Date(to),
  };
}

/**
 * The period a summary covers: the one asked for, else the last 30 days from the start of the UTC hour that
 * holds now − 30 days (up to 59 minutes more than 30 days), so that it cuts no hour and reads rollups only.
 */
export function summaryPeriod(period: { periodStart?: Date; periodEnd?: Date }, now: Date) {
  const periodEnd = period.periodEnd ?? now;
  const periodStart = period.periodStart ?? new Date(Math.floor((periodEnd.getTime() - 30 * dayMs) / hourMs) * hourMs);
  return { periodStart, periodEnd };
}

/** The value at rank `rank` (0-based, interpolated) of the durations the buckets hold. */
function percentileOf(buckets: [number, number][], rank: number): number {
  const valueAt = (index: number) => {
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (index < seen) return bucketValueMs(bucket);
    }
    return bucketValueMs(buckets[buckets.length - 1][0]);
  };
  const below = valueAt(Math.floor(rank));
  return below + (rank - Math.floor(rank)) * (valueAt(Math.ceil(rank)) - below);
}

/** The values of the partial hours' statement: placeholders when it is prepared, else the values themselves. */
type PartialHoursValues = Record<"accountId" | "from1" | "to1" | "from2" | "to2", unknown>;

/**
 * The rows of a period's two partial hours (at its start and end; an absent one is an empty range), each
 * [from, to): the jobs created in it (counts, and durations by bucket), and the charges and refunds entered in it.
 * Every branch reads one range of an index on (account_id, created_at), so the statement costs what those hours'
 * work costs, never the account's history. One statement, prepared once per connection: on a busy server a
 * statement's round trip and planning cost more than the rows of a partial hour.
 */
function partialHoursQuery(d: Tx, v: PartialHoursValues) {
  const date = (at: SQL) => sql<string>`to_char(${at} at time zone 'UTC', 'YYYY-MM-DD')`;
  const keyOf = sql<string>`coalesce(${jobs.apiKeyId}, ${noKeySql})`;
  const duration = durationMsSql(sql`${jobs.completedAt}`, sql`${jobs.createdAt}`);
  const inRange = (column: typeof jobs.createdAt | typeof creditLedger.createdAt, from: unknown, to: unknown) =>
    sql`${column} >= ${from}::timestamptz and ${column} < ${to}::timestamptz`;
  const jobsIn = (from: unknown, to: unknown) =>
    d
      .select({
        date: date(sql`${jobs.createdAt}`),
        serviceId: jobs.serviceId,
        keyId: keyOf,
        // The duration's bucket (null while the job has none): the histogram comes from the same read.
        bucket: sql<number | null>`case when ${jobs.completedAt} is not null then ${durationBucketSql(duration)} end`,
        jobs: sql`count(*)`,
        completed: sql`count(*) filter (where ${jobs.status} = 'completed')`,
        failed: sql`count(*) filter (where ${jobs.status} = 'failed')`,
        charged: sql`0`,
        refunded: sql`0`,
        durationCount: sql`count(${jobs.completedAt})`,
        durationSumMs: sql`coalesce(sum(${duration}) filter (where ${jobs.completedAt} is not null), 0)`,
      })
      .from(jobs)
      .where(and(sql`${jobs.accountId} = ${v.accountId}::uuid`, inRange(jobs.createdAt, from, to)))
      .groupBy(sql`1`, jobs.serviceId, sql`3`, sql`4`);
  const creditsIn = (from: unknown, to: unknown) =>
    d
      .select({
        date: date(sql`${creditLedger.createdAt}`),
        serviceId: jobs.serviceId,
        keyId: keyOf,
        bucket: sql<number | null>`null::int`,
        jobs: sql`0`,
        completed: sql`0`,
        failed: sql`0`,
        charged: sql`coalesce(-sum(${creditLedger.amount}) filter (where ${creditLedger.type} = 'charge'), 0)`,
        refunded: sql`coalesce(sum(${creditLedger.amount}) filter (where ${creditLedger.type} = 'refund'), 0)`,
        durationCount: sql`0`,
        durationSumMs: sql`0`,
      })
      .from(creditLedger)
      // The entry's job gives its service and key: one primary-key lookup per entry of the hour.
      .innerJoin(jobs, eq(jobs.id, creditLedger.jobId))
      .where(
        and(
          sql`${creditLedger.accountId} = ${v.accountId}::uuid`,
          inRange(creditLedger.createdAt, from, to),
          sql`${creditLedger.type} in ('charge', 'refund')`,
        ),
      )
      .groupBy(sql`1`, jobs.serviceId, sql`3`);
  return unionAll(jobsIn(v.from1, v.to1), creditsIn(v.from1, v.to1), jobsIn(v.from2, v.to2), creditsIn(v.from2, v.to2));
}

function partialHoursValues(accountId: string, ranges: [Date, Date][]): PartialHoursValues {
  // A period with one partial hour reads an empty second range.
  const [[from1, to1], [from2, to2] = [to1, to1]] = ranges;
  const [a, b, c, e] = [from1, to1, from2, to2].map((at) => at.toISOString());
  return { accountId, from1: a, to1: b, from2: c, to2: e };
}

/** The partial hours' statement with its values in place (what the prepared one runs), for reading its plan. */
export const partialHoursStatement = (d: Tx, accountId: string, ranges: [Date, Date][]) =>
  partialHoursQuery(d, partialHoursValues(accountId, ranges));

const placeholders = Object.fromEntries(
  ["accountId", "from1", "to1", "from2", "to2"].map((name) => [name, sql.placeholder(name)]),
) as PartialHoursValues;
const preparedPartialHours = preparedPerDatabase((d) =>
  partialHoursQuery(d, placeholders).prepare("usage_partial_hours"),
);

export async function getUsageSummary(
  accountId: string,
  period: { periodStart?: Date; periodEnd?: Date },
): Promise<UsageSummary> {
  const now = spendNow();
  const { periodStart, periodEnd } = summaryPeriod(period, now);
  const parts = splitPeriod(periodStart, periodEnd, now);
  const d = await db();

  const rollups = and(
    eq(usageRollups.accountId, accountId),
    gte(usageRollups.hour, parts.from),
    lt(usageRollups.hour, parts.rollupsTo),
  );
  // The partial hours that hold anything (none for the default period), read from the rows.
  const partialHours = (
    [
      [parts.start, parts.from],
      [parts.to, parts.endExclusive],
    ] as [Date, Date][]
  ).filter(([a, b]) => a < b);

  const [rolled, rolledBuckets, partial, keys] = await Promise.all([
    d
      .select({
        date: sql<string>`to_char(${usageRollups.hour} at time zone 'UTC', 'YYYY-MM-DD')`,
        serviceId: usageRollups.serviceId,
        keyId: sql<string>`${usageRollups.apiKeyId}`,
        jobs: sql`sum(${usageRollups.jobs})`,
        completed: sql`sum(${usageRollups.completed})`,
        failed: sql`sum(${usageRollups.failed})`,
        charged: sql`sum(${usageRollups.creditsCharged})`,
        refunded: sql`sum(${usageRollups.creditsRefunded})`,
        durationCount: sql`sum(${usageRollups.durationCount})`,
        durationSumMs: sql`sum(${usageRollups.durationSumMs})`,
      })
      .from(usageRollups)
      .where(rollups)
      .groupBy(sql`1`, usageRollups.serviceId, usageRollups.apiKeyId),
    d
      .select({ bucket: sql`(e.key)::int`, n: sql`sum((e.value)::bigint)` })
      .from(sql`${usageRollups}, jsonb_each_text(${usageRollups.durations}) e`)
      .where(and(rollups, sql`${usageRollups.durationCount} > 0`))
      .groupBy(sql`1`),
    partialHours.length ? preparedPartialHours(d).execute(partialHoursValues(accountId, partialHours)) : [],
    d
      .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, accountId)),
  ]);

  const total = new Tally<"all">();
  const byService = new Tally<string>();
  const byDay = new Tally<string>();
  const byKey = new Tally<string>();
  for (const row of [...rolled, ...partial] as CountsRow[]) {
    total.add("all", row);
    byService.add(row.serviceId, row);
    byDay.add(row.date, row);
    byKey.add(row.keyId, row);
  }
  const histogram = new Map<number, number>();
  const partialBuckets = partial.flatMap(({ bucket, durationCount: n }) => (bucket === null ? [] : [{ bucket, n }]));
  for (const { bucket, n } of [...rolledBuckets, ...partialBuckets])
    histogram.set(int(bucket), (histogram.get(int(bucket)) ?? 0) + int(n));
  const buckets = [...histogram.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);

  const all = total.rows.get("all") ?? zero();
  const used = (c: Counts) => c.charged - c.refunded;
  const counted = (c: Counts) => c.jobs > 0 || c.charged > 0 || c.refunded > 0;
  const names = new Map(keys.map((k) => [k.id, k]));
  return {
    periodStart: periodStart.toISOString(),
    periodEnd: periodEnd.toISOString(),
    totalJobs: all.jobs,
    completedJobs: all.completed,
    failedJobs: all.failed,
    activeJobs: all.jobs - all.completed - all.failed,
    creditsUsed: used(all),
    successRate: all.completed + all.failed === 0 ? 0 : all.completed / (all.completed + all.failed),
    avgDurationMs: all.durationCount === 0 ? null : Math.round(all.durationSumMs / all.durationCount),
    p95DurationMs: all.durationCount === 0 ? null : Math.round(percentileOf(buckets, 0.95 * (all.durationCount - 1))),
    byService: [...byService.rows]
      .filter(([, c]) => counted(c))
      .map(([serviceId, c]) => ({
        serviceId,
        jobs: c.jobs,
        completed: c.completed,
        failed: c.failed,
        creditsUsed: used(c),
      }))
      .sort((a, b) => a.serviceId.localeCompare(b.serviceId)),
    byDay: [...byDay.rows]
      .filter(([, c]) => counted(c))
      .map(([day, c]) => ({ date: day, jobs: c.jobs, creditsUsed: used(c) }))
      .sort((a, b) => a.date.localeCompare(b.date)),
    byKey: [...byKey.rows]
      .filter(([, c]) => counted(c))
      .map(([id, c]) => {
        const keyId = id === noKeyId ? null : id;
        const key = keyId === null ? undefined : names.get(keyId);
        return { keyId, name: key?.name ?? null, prefix: key?.prefix ?? null, jobs: c.jobs, creditsUsed: used(c) };
      })
      .sort((a, b) => b.creditsUsed - a.creditsUsed || b.jobs - a.jobs),
  };
}
