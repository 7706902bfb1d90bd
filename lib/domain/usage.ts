// UsageSummary (CONTRACT §6): job counts, credits used (charges minus refunds), durations, by service, by day,
// and by API key (§11). Read from the usage rollups (usage-rollups.ts): a period's whole UTC days from the day
// rollups, the whole hours of a partial day at its start or end from the hour rollups (at most 23 rows per partial
// day, service and key), the whole minutes of a partial hour from the minute rollups (at most 59 rows per partial
// hour, service and key), and only the partial minute at either end (at most two) from the jobs and ledger rows
// themselves (an index range each). So the bounds are exact to the millisecond, and a read costs the same whatever
// the developer's history, whatever the period's length (a day is one row), and whatever their rate of work but
// for the work of the two minutes that the period cuts. A period ending at or after now reads its last day (or
// hour, or minute) whole from the rollups (that rollup holds exactly what happened up to now), and the default
// period starts on a UTC hour, so the default summary reads rollups only: about 30 day rows and at most 23 hour
// rows per service and key. avgDurationMs is exact; p95DurationMs is read from log-scale buckets, within 2.5 %
// (or 1 ms) of the exact one.
import { and, eq, sql, type SQL } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type { Tx } from "@/lib/db/database";
import { preparedPerDatabase } from "@/lib/db/prepared-statements";
import {
  apiKeys,
  creditLedger,
  jobs,
  usageDayRollups,
  usageDeltas,
  usageMinuteRollups,
  usageRollups,
} from "@/lib/db/schema";
import { db } from "./database";
import { spendNow } from "./spend-controls";
import {
  bucketValueMs,
  deltaDurationCountSql,
  durationBucketSql,
  durationMsSql,
  noKeyId,
  noKeySql,
} from "./usage-rollups";
import type { UsageSummary } from "@/lib/contract/schemas";

const minuteMs = 60 * 1000;
const hourMs = 60 * minuteMs;
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
 * The period a summary covers: the one asked for, else the last 30 days from the start of the UTC hour that
 * holds now − 30 days (up to 59 minutes more than 30 days), so that it cuts no hour and reads rollups only.
 */
export function summaryPeriod(period: { periodStart?: Date; periodEnd?: Date }, now: Date) {
  const periodEnd = period.periodEnd ?? now;
  const periodStart = period.periodStart ?? new Date(Math.floor((periodEnd.getTime() - 30 * dayMs) / hourMs) * hourMs);
  return { periodStart, periodEnd };
}

type Range = [Date, Date];

/**
 * Where the parts of a period [start, end] (end inclusive, to the millisecond) are read, each as [from, to): its
 * whole UTC days (`days`) from the day rollups, the whole hours around them (`hours`, two ranges within the
 * partial days) from the hour rollups, the whole minutes around those (`minutes`, two ranges within the partial
 * hours) from the minute rollups, and the partial minutes at its ends (`rows`, at most two ranges each within one
 * minute) from the jobs and ledger rows. A period ending at or after now takes its last minute, hour and day
 * whole: nothing has happened after now. Empty ranges are [t, t).
 */
export function periodParts(start: Date, end: Date, now: Date) {
  const up = (at: number, unit: number) => Math.ceil(at / unit) * unit;
  const down = (at: number, unit: number) => Math.floor(at / unit) * unit;
  const toEnd = end >= now ? up : down;
  const [s, endExclusive] = [start.getTime(), end.getTime() + 1];
  const range = (from: number, to: number): Range => [new Date(from), new Date(Math.max(from, to))];
  const none = range(s, s);
  const [m1, m2] = [up(s, minuteMs), toEnd(endExclusive, minuteMs)];
  // Within one minute, or across one minute's start: all of it from the rows.
  if (m1 >= m2) return { days: none, hours: [none, none], minutes: [none, none], rows: [range(s, endExclusive), none] };
  const rows = [range(s, m1), range(m2, endExclusive)];
  const [h1, h2] = [up(m1, hourMs), toEnd(m2, hourMs)];
  if (h1 >= h2) return { days: none, hours: [none, none], minutes: [range(m1, m2), none], rows };
  const minutes = [range(m1, h1), range(h2, m2)];
  const [d1, d2] = [up(h1, dayMs), toEnd(h2, dayMs)];
  if (d1 >= d2) return { days: none, hours: [range(h1, h2), none], minutes, rows };
  return { days: range(d1, d2), hours: [range(h1, d1), range(d2, h2)], minutes, rows };
}

/**
 * The rollup rows of a period (periodParts): an index range of each table, one day row per whole UTC day (30-odd
 * for the default window; an explicit period is not capped, so ten years read about 3,650), at most 46 hour rows and
 * 118 minute rows per service and key; and, as rows of the same shape, the deltas not folded yet (usage_deltas: a
 * sweep interval's work, about half a second) that count in those parts. The deltas of the partial minutes are
 * not read: those minutes come from the jobs and ledger rows, which already hold them.
 */
function rollupRowsSql(accountId: string, { days, hours, minutes }: ReturnType<typeof periodParts>) {
  const columns = sql.raw(`service_id, api_key_id, jobs, completed, failed, credits_charged, credits_refunded,
    duration_count, duration_sum_ms, durations`);
  const iso = (at: Date) => sql`${at.toISOString()}::timestamptz`;
  const within = (column: SQL, [from, to]: Range) => sql`(${column} >= ${iso(from)} and ${column} < ${iso(to)})`;
  const rowsIn = (unit: "day" | "hour" | "minute", range: Range) => {
    const table = { day: usageDayRollups, hour: usageRollups, minute: usageMinuteRollups }[unit];
    const at = sql.raw(unit);
    return sql`
    select ${at} as at, ${columns} from ${table}
    where account_id = ${accountId}::uuid and ${within(at, range)}`;
  };
  const deltaAt = sql`${usageDeltas.at}`;
  const durations = deltaDurationCountSql(sql`${usageDeltas}`);
  const unfolded = sql`
    select at, service_id, api_key_id, jobs::bigint, completed::bigint, failed::bigint, charged, refunded,
      ${durations}::bigint, coalesce(duration_ms * ${durations}, 0),
      case when duration_ms is null then '{}'::jsonb
        else jsonb_build_object(${durationBucketSql(sql`duration_ms`)}::text, ${durations}) end
    from ${usageDeltas}
    where account_id = ${accountId}::uuid
      and (${sql.join(
        [days, ...hours, ...minutes].map((range) => within(deltaAt, range)),
        sql` or `,
      )})`;
  return sql`(${rowsIn("day", days)}
    union all ${rowsIn("hour", hours[0])}
    union all ${rowsIn("hour", hours[1])}
    union all ${rowsIn("minute", minutes[0])}
    union all ${rowsIn("minute", minutes[1])}
    union all ${unfolded}) r`;
}

/** The statements of a period's rollups (counts, and the durations' buckets), for reading their plans. */
export function usageRollupStatements(d: Tx, accountId: string, parts: ReturnType<typeof periodParts>) {
  const rows = rollupRowsSql(accountId, parts);
  return {
    counts: d
      .select({
        date: sql<string>`to_char(r.at at time zone 'UTC', 'YYYY-MM-DD')`,
        serviceId: sql<string>`r.service_id`,
        keyId: sql<string>`r.api_key_id`,
        jobs: sql`sum(r.jobs)`,
        completed: sql`sum(r.completed)`,
        failed: sql`sum(r.failed)`,
        charged: sql`sum(r.credits_charged)`,
        refunded: sql`sum(r.credits_refunded)`,
        durationCount: sql`sum(r.duration_count)`,
        durationSumMs: sql`sum(r.duration_sum_ms)`,
      })
      .from(rows)
      .groupBy(sql`1`, sql`2`, sql`3`),
    // The histograms themselves, summed here: summed in SQL (jsonb_each_text, which PostgreSQL takes for 100 rows
    // a call), a period's few hundred rollups looked like tens of thousands of rows, and with a period that cuts
    // hours (the union of three reads) PostgreSQL chose a parallel plan whose workers' start took 8–11 ms of the
    // 12 (a seeded million jobs, EXPLAIN ANALYZE), for under a millisecond of work.
    buckets: d
      .select({ durations: sql<Record<string, number | string> | string>`r.durations` })
      .from(rows)
      .where(sql`r.duration_count > 0`),
  };
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

/** The values of the partial minutes' statement: placeholders when it is prepared, else the values themselves. */
type PartialMinutesValues = Record<"accountId" | "from1" | "to1" | "from2" | "to2", unknown>;

/**
 * The rows of a period's two partial minutes (at its start and end; an absent one is an empty range), each
 * [from, to): the jobs created in it (counts, and durations by bucket), and the charges and refunds entered in it.
 * Every branch reads one range of an index on (account_id, created_at), so the statement costs what those
 * minutes' work costs, never the account's history nor the rest of their hours. One statement, prepared once per
 * connection: on a busy server a statement's round trip and planning cost more than the rows of a partial minute.
 */
function partialMinutesQuery(d: Tx, v: PartialMinutesValues) {
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
      // The entry's job gives its service and key: one primary-key lookup per entry of the minute.
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

function partialMinutesValues(accountId: string, [[from1, to1], [from2, to2]]: Range[]): PartialMinutesValues {
  const [a, b, c, e] = [from1, to1, from2, to2].map((at) => at.toISOString());
  return { accountId, from1: a, to1: b, from2: c, to2: e };
}

/** The partial minutes' statement with its values in place (what the prepared one runs), for reading its plan. */
export const partialMinutesStatement = (d: Tx, accountId: string, ranges: Range[]) =>
  partialMinutesQuery(d, partialMinutesValues(accountId, ranges));

const placeholders = Object.fromEntries(
  ["accountId", "from1", "to1", "from2", "to2"].map((name) => [name, sql.placeholder(name)]),
) as PartialMinutesValues;
const preparedPartialMinutes = preparedPerDatabase((d) =>
  partialMinutesQuery(d, placeholders).prepare("usage_partial_minutes"),
);

export async function getUsageSummary(
  accountId: string,
  period: { periodStart?: Date; periodEnd?: Date },
): Promise<UsageSummary> {
  const now = spendNow();
  const { periodStart, periodEnd } = summaryPeriod(period, now);
  const parts = periodParts(periodStart, periodEnd, now);
  const d = await db();
  const statements = usageRollupStatements(d, accountId, parts);
  const [rolled, rolledBuckets, partial, keys] = await Promise.all([
    statements.counts,
    statements.buckets,
    // The partial minutes that hold anything (none for the default period), read from the rows.
    parts.rows.some(([from, to]) => from < to)
      ? preparedPartialMinutes(d).execute(partialMinutesValues(accountId, parts.rows))
      : [],
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
  const bucketsOf = ({ durations }: { durations: Record<string, number | string> | string }) =>
    Object.entries(typeof durations === "string" ? (JSON.parse(durations) as Record<string, number>) : durations).map(
      ([bucket, n]) => ({ bucket, n }),
    );
  for (const { bucket, n } of [...rolledBuckets.flatMap(bucketsOf), ...partialBuckets])
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
