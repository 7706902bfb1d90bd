// Usage rollups (lib/db/schema.ts, usage_rollups, usage_minute_rollups and usage_day_rollups): what the usage
// summary counts, kept per developer, UTC hour (and UTC minute, and UTC day), service and key. Every rule of what
// counts where is here. The writes that change it append deltas to usage_deltas (a row per minute, service, key
// and duration of what a statement counted), in their transactions (usageRollupCtes: one insert, no upsert), and
// the sweeper folds the deltas into the three tables (foldUsageDeltas: one statement), so the rollups plus the
// deltas left are always exactly what was written:
// - a job's creation: `jobs` and its charge (`credits_charged`), in the hour it was created (create-job.ts);
// - its completion: `completed` and its duration, in the hour it was created (change-statement.ts);
// - its failure: `failed` and its duration, in the hour it was created, and its refund (`credits_refunded`)
//   in the hour of the refund; a discount for running on the developer's own node is a refund too
//   (countFailures, countRefund).
import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { executeShaped } from "@/lib/db/prepared-statements";
import { usageDayRollups, usageDeltas, usageMinuteRollups, usageRollups } from "@/lib/db/schema";
import { spendClockOverride, spendClockSql } from "./spend-controls";

/** The key of jobs submitted without one (the rollup's key is part of its primary key). */
export const noKeyId = "00000000-0000-0000-0000-000000000000";
/** noKeyId in SQL: a literal, since the statements that write rollups are compiled once per shape. */
export const noKeySql = sql.raw(`'${noKeyId}'::uuid`);

/**
 * Durations are counted in log-scale buckets: bucket 0 holds those under 1 ms, bucket b ≥ 1 those in
 * [r^(b−1), r^b) ms. A bucket's value is its geometric middle, within √r − 1 ≈ 2.5 % of any duration in it,
 * so a percentile read from the buckets is within 2.5 % (or 1 ms) of the exact one.
 */
export const durationRatio = 1.05;

export function durationBucket(ms: number): number {
  return ms < 1 ? 0 : 1 + Math.floor(Math.log(ms) / Math.log(durationRatio));
}

export function bucketValueMs(bucket: number): number {
  return bucket === 0 ? 0 : durationRatio ** (bucket - 0.5);
}

/** durationBucket in SQL (the same floating-point arithmetic: ln / ln). */
export const durationBucketSql = (ms: SQL) =>
  sql`case when ${ms} < 1 then 0 else 1 + floor(ln(${ms}) / ln(${sql.raw(String(durationRatio))}))::int end`;

/** A final job's duration in whole milliseconds (its times are kept to the millisecond), never below 0. */
export const durationMsSql = (completedAt: SQL, createdAt: SQL) =>
  sql`greatest(0, round(extract(epoch from (${completedAt} - ${createdAt})) * 1000))::bigint`;

/** Each table of rollups, by the span of its rows: the table and its time column. */
const rollupTables = {
  hour: [usageRollups, "hour"],
  minute: [usageMinuteRollups, "minute"],
  day: [usageDayRollups, "day"],
} as const;

/**
 * The upsert of one table of rollups (`unit`: its rows' span, 'hour', 'minute' or 'day') from `deltas`, the name of a
 * relation of (account_id, at, service_id, api_key_id, jobs, completed, failed, charged, refunded, duration_ms),
 * a row per thing counted (duration_ms null when it counts none). Rows are summed per rollup row first (an upsert
 * may change a row once) and written in key order, so concurrent folds lock shared rows in one order.
 */
function rollupUpsertSql(unit: keyof typeof rollupTables, deltas: SQL): SQL {
  const [table, column] = rollupTables[unit];
  const merged = sql`(select coalesce(jsonb_object_agg(k, s), '{}'::jsonb) from (
      select k, sum(v::bigint) as s from (
        select key as k, value as v from jsonb_each_text(u.durations)
        union all select key, value from jsonb_each_text(excluded.durations)) e group by k) m)`;
  const at = sql.raw(column);
  return sql`
    insert into ${table} as u (account_id, ${at}, service_id, api_key_id, jobs, completed, failed,
      credits_charged, credits_refunded, duration_count, duration_sum_ms, durations)
    select account_id, at, service_id, api_key_id, sum(jobs), sum(completed), sum(failed), sum(charged),
      sum(refunded), sum(n), coalesce(sum(ms), 0),
      coalesce(jsonb_object_agg(bucket::text, n) filter (where n > 0), '{}'::jsonb)
    from (
      select d.account_id, date_trunc(${sql.raw(`'${unit}'`)}, d.at, 'UTC') as at, d.service_id,
        coalesce(d.api_key_id, ${noKeySql}) as api_key_id,
        ${durationBucketSql(sql`d.duration_ms`)} as bucket, sum(d.jobs) as jobs, sum(d.completed) as completed,
        sum(d.failed) as failed, sum(d.charged) as charged, sum(d.refunded) as refunded,
        sum(${deltaDurationCountSql(sql`d`)}) as n, sum(d.duration_ms * ${deltaDurationCountSql(sql`d`)}) as ms
      from ${deltas} d
      group by 1, 2, 3, 4, 5
    ) b
    group by account_id, at, service_id, api_key_id
    order by account_id, at, service_id, api_key_id
    on conflict (account_id, ${at}, service_id, api_key_id) do update set
      jobs = u.jobs + excluded.jobs,
      completed = u.completed + excluded.completed,
      failed = u.failed + excluded.failed,
      credits_charged = u.credits_charged + excluded.credits_charged,
      credits_refunded = u.credits_refunded + excluded.credits_refunded,
      duration_count = u.duration_count + excluded.duration_count,
      duration_sum_ms = u.duration_sum_ms + excluded.duration_sum_ms,
      durations = case when excluded.duration_count = 0 then u.durations else ${merged} end`;
}

/**
 * How many durations a row of usage_deltas (`d`) counts, each of `d.duration_ms`: one per final job it counts
 * (completed or failed), none when duration_ms is null. Only a final job's row carries a duration, so the rows a
 * statement writes can be summed per duration (usageRollupCtes) and still hold every duration exactly.
 */
export const deltaDurationCountSql = (d: SQL) =>
  sql`(case when ${d}.duration_ms is null then 0 else ${d}.completed + ${d}.failed end)`;

/**
 * The one write of the rollups, as an entry `<name>` of a statement's WITH list: `deltas` (a relation as
 * rollupUpsertSql takes, a row per thing counted) appended to usage_deltas, in the writer's transaction, summed
 * per minute (the rollups' finest span; a usage read takes the deltas of whole minutes only), service, key and
 * duration: the jobs of a batched submission are one row, not one each. An insert, never an upsert: the writer
 * locks no rollup row (so writers never wait on each other's rollups, in any order) and rewrites no histogram;
 * foldUsageDeltas counts them in the rollups a moment later.
 */
export function usageRollupCtes(name: string, deltas: SQL): SQL {
  return sql`${sql.raw(name)} as (
    insert into ${usageDeltas} (account_id, at, service_id, api_key_id, jobs, completed, failed, charged, refunded, duration_ms)
    select d.account_id, date_trunc('minute', d.at, 'UTC'), d.service_id, coalesce(d.api_key_id, ${noKeySql}),
      sum(d.jobs), sum(d.completed), sum(d.failed), sum(d.charged), sum(d.refunded), d.duration_ms
    from (${deltas}) d
    group by 1, 2, 3, 4, d.duration_ms)`;
}

/** usageRollupCtes as a statement of its own. */
export const usageRollupSql = (deltas: SQL): SQL => sql`with ${usageRollupCtes("usage_counted", deltas)} select 1`;

/**
 * Folds up to `batch` deltas into the hour, minute and day rollups in one statement (a reader, which sums the
 * rollups and the deltas left, sees the same totals before and after); returns how many it folded. Deltas
 * another instance is folding are skipped. The folds are the rollups' only writers, and each locks their rows in
 * one order: PostgreSQL runs data-modifying WITH entries that the main query does not read last listed first
 * (day, then minute, then hour; checked on PostgreSQL 15), each upsert in key order, so two folds never wait on
 * each other in a cycle. The main query must not select from the upserts: one it read would run first.
 */
export async function foldUsageDeltas(d: Tx, batch = 5000): Promise<number> {
  const [row] = await executeShaped<{ n: number }>(d, "usage_fold", "", usageFold, { batch });
  return Number(row.n);
}

const usageFold = () => sql`
    with taken as (
      select id from ${usageDeltas} order by id limit ${sql.placeholder("batch")}::int for update skip locked
    ),
    folded as (
      delete from ${usageDeltas} x using taken where x.id = taken.id
      returning x.account_id, x.at, x.service_id, x.api_key_id, x.jobs, x.completed, x.failed, x.charged,
        x.refunded, x.duration_ms
    ),
    hours as (${rollupUpsertSql("hour", sql`folded`)}),
    minutes as (${rollupUpsertSql("minute", sql`folded`)}),
    days as (${rollupUpsertSql("day", sql`folded`)})
    select count(*)::int as n from folded`;

/** Jobs created (`created`: rows of jobs as inserted), each with its charge, in the hour of its creation. */
export const createdDeltasSql = (created: SQL) => sql`
  select account_id, created_at as at, service_id, api_key_id, 1 as jobs, 0 as completed, 0 as failed,
    credit_cost as charged, 0 as refunded, null::bigint as duration_ms
  from ${created}`;

/** Jobs completed (`changed`: rows of jobs as written), in the hour of their creation, with their durations. */
export const completedDeltasSql = (changed: SQL) => sql`
  select account_id, created_at as at, service_id, api_key_id, 0 as jobs, 1 as completed, 0 as failed,
    0 as charged, 0 as refunded, ${durationMsSql(sql`completed_at`, sql`created_at`)} as duration_ms
  from ${changed}`;

interface CountedJob {
  accountId: string;
  serviceId: string;
  apiKeyId: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** The time of a refund written now: the spend clock (its ledger entry's time too, credits.ts). */
export const refundTimeSql = () => spendClockSql(sql`${spendClockOverride()}`);

/**
 * Jobs that failed: each `failed` (with its duration) in the hour of its creation, and what it was refunded
 * (`refunded`, possibly 0) in the hour of the refund: appended, it locks nothing the refunds lock.
 */
export async function countFailures(tx: Tx, jobs: readonly (CountedJob & { refunded: number })[]): Promise<void> {
  if (jobs.length === 0) return;
  const rows = jobs.map(
    (job) =>
      sql`(${job.accountId}::uuid, ${job.createdAt.toISOString()}::timestamptz, ${job.serviceId}::text, ${job.apiKeyId}::uuid, ${job.completedAt?.toISOString() ?? null}::timestamptz, ${job.refunded}::bigint)`,
  );
  const failed = sql`(values ${sql.join(rows, sql`, `)}) as f(account_id, created_at, service_id, api_key_id, completed_at, refunded)`;
  await tx.execute(
    usageRollupSql(sql`
      select account_id, created_at as at, service_id, api_key_id, 0 as jobs, 0 as completed, 1 as failed,
        0 as charged, 0 as refunded,
        case when completed_at is null then null else ${durationMsSql(sql`completed_at`, sql`created_at`)} end as duration_ms
      from ${failed}
      union all
      select account_id, ${refundTimeSql()}, service_id, api_key_id, 0, 0, 0, 0, refunded, null
      from ${failed} where refunded > 0`),
  );
}

/** A refund of part of a completed job's charge (its own-node discount), in the hour of the refund. */
export async function countRefund(
  tx: Tx,
  job: Pick<CountedJob, "accountId" | "serviceId" | "apiKeyId">,
  amount: number,
): Promise<void> {
  await tx.execute(
    usageRollupSql(sql`
      select ${job.accountId}::uuid as account_id, ${refundTimeSql()} as at, ${job.serviceId}::text as service_id,
        ${job.apiKeyId}::uuid as api_key_id, 0 as jobs, 0 as completed, 0 as failed, 0 as charged,
        ${amount}::bigint as refunded, null::bigint as duration_ms`),
  );
}
