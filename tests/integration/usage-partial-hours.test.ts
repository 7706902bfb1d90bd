// A usage summary whose period cuts days and hours (issue 43): its whole days come from the day rollups, the whole
// hours of each partial day from the hour rollups, the whole minutes of each partial hour at its start or end from
// the minute rollups, and only the partial minute at each end from the jobs and ledger rows (one index range
// each), so it counts to the millisecond. The rows its statements examine (EXPLAIN ANALYZE, on a seeded history
// with a busy hour at each cut, after ANALYZE) are bounded by the period's days, the hours of its two partial days,
// the minutes of its two partial hours and the work of the two minutes it cuts: never the account's history, nor
// the period's every hour, nor the rest of the work of the hours it cuts.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/domain/database";
import { getUsageSummary, partialMinutesStatement, periodParts, usageRollupStatements } from "@/lib/domain/usage";
import { rowsOf } from "../support/engine";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0 });
const minuteMs = 60_000;
const hourMs = 3600_000;
/** One developer's history: this many jobs over 60 days (about 14 an hour), every tenth failed and refunded. */
const history = 20_000;
/** And this many more in each of the two hours the period cuts (one a second). */
const busyHour = 3_600;
// 20 days and a few hours back, starting 17 minutes into an hour and ending 43 minutes into one (to the ms),
// 15 days later: 359 whole hours.
const start = () => Math.floor((now - 20 * 24 * hourMs) / hourMs) * hourMs + 17 * 60_000 + 123;
const end = () => start() + 15 * 24 * hourMs + 26 * 60_000;

let accountId: string;
let now: number;

beforeAll(async () => {
  [{ id: accountId }] = await rowsOf<{ id: string }>(
    sql`select id from accounts where lower(wallet_address) = lower(${ctx.dev.address})`,
  );
  now = Date.now();
  const step = (60 * 24 * hourMs) / history;
  // Written by SQL as the product stores them (jobs, charges, refunds and their rollups): the API would take minutes.
  const busy = (at: number) => Math.floor(at / hourMs) * hourMs;
  await rowsOf(sql`create temporary table seeded as
    select gen_random_uuid() as id, g, to_timestamp((${now}::float8 - ${step}::float8 * g) / 1000) as created_at,
      case when g % 10 = 0 then 'failed' else 'completed' end as status
    from generate_series(1, ${history}::int) g
    union all
    select gen_random_uuid(), g, to_timestamp((h::float8 + 1000 * (g % ${busyHour}::int) + 7) / 1000),
      case when g % 10 = 0 then 'failed' else 'completed' end
    from generate_series(1, ${busyHour}::int) g,
      unnest(array[${busy(start())}::float8, ${busy(end())}::float8]) h`);
  await rowsOf(sql`insert into jobs (id, account_id, service_id, status, progress, input, credit_cost, max_attempts,
      timeout_ms, attempt, created_at, updated_at, completed_at, charged_at)
    select id, ${accountId}::uuid, 'token-count', status, 100, '{}'::jsonb, 2, 1, 60000, 1, created_at,
      created_at + interval '40 ms', created_at + interval '40 ms', created_at from seeded`);
  await rowsOf(sql`insert into credit_ledger (account_id, type, amount, balance_after, job_id, description, created_at)
    select ${accountId}::uuid, 'charge', -2, 0, id, 'token-count job', created_at from seeded
    union all select ${accountId}::uuid, 'refund', 2, 0, id, 'Refund: job failed', created_at + interval '40 ms'
    from seeded where status = 'failed'`);
  // The rollups, per hour, per minute and per day, as the product counts them: a job in the hour (minute, day) it
  // was created, credits in that of their entry (a refund 40 ms after its job's creation may fall in the next one).
  for (const [table, unit] of [
    ["usage_rollups", "hour"],
    ["usage_minute_rollups", "minute"],
    ["usage_day_rollups", "day"],
  ]) {
    const [t, u, at] = [sql.raw(table), sql.raw(`'${unit}'`), sql.raw(unit)];
    await rowsOf(sql`insert into ${t} (account_id, ${at}, service_id, api_key_id, jobs, completed, failed,
        credits_charged, credits_refunded, duration_count, duration_sum_ms, durations)
      select ${accountId}::uuid, date_trunc(${u}, created_at, 'UTC'), 'token-count', '00000000-0000-0000-0000-000000000000',
        count(*), count(*) filter (where status = 'completed'), count(*) filter (where status = 'failed'), 2 * count(*),
        0, count(*), 40 * count(*), jsonb_build_object((1 + floor(ln(40) / ln(1.05))::int)::text, count(*))
      from seeded group by 2`);
    await rowsOf(sql`insert into ${t} as u (account_id, ${at}, service_id, api_key_id, credits_refunded)
      select ${accountId}::uuid, date_trunc(${u}, created_at + interval '40 ms', 'UTC'), 'token-count',
        '00000000-0000-0000-0000-000000000000', 2 * count(*)
      from seeded where status = 'failed' group by 2
      on conflict (account_id, ${at}, service_id, api_key_id)
      do update set credits_refunded = u.credits_refunded + excluded.credits_refunded`);
  }
  await rowsOf(sql`drop table seeded`);
  await rowsOf(sql`analyze`);
});

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/**
 * The rows of each table a statement examined (those it kept and those its filters threw away), run as a
 * prepared statement, with the plan PostgreSQL makes for its values or (`generic`) the one it settles on after
 * five runs, made without them.
 */
async function rowsExamined(statement: { toSQL(): { sql: string; params: unknown[] } }, generic: boolean) {
  const { sql: text, params } = statement.toSQL();
  const plan = await (
    await db()
  ).transaction(async (tx) => {
    if (generic) await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
    await tx.execute(sql.raw(`prepare plan_under_test as ${text}`));
    try {
      const args = params.map((p) => `'${String(p).replace(/'/g, "''")}'`).join(", ");
      const explained = await tx.execute(sql.raw(`explain (analyze, format json) execute plan_under_test(${args})`));
      return (explained as unknown as { rows: { "QUERY PLAN": [{ Plan: PlanNode }] | string }[] }).rows[0][
        "QUERY PLAN"
      ];
    } finally {
      await tx.execute(sql`deallocate plan_under_test`).catch(() => undefined);
    }
  });
  const [{ Plan: root }] = typeof plan === "string" ? (JSON.parse(plan) as [{ Plan: PlanNode }]) : plan;
  const examined: Record<string, number> = {};
  const walk = (node: PlanNode) => {
    const relation = node["Relation Name"];
    if (relation)
      examined[relation] =
        (examined[relation] ?? 0) +
        (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) *
          node["Actual Loops"];
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root);
  return examined;
}

async function rowsBetween(from: number, to: number) {
  const [counts] = await rowsOf<{ jobs: number; entries: number }>(sql`select
    (select count(*)::int from jobs where account_id = ${accountId}
      and created_at >= ${new Date(from).toISOString()}::timestamptz and created_at < ${new Date(to).toISOString()}::timestamptz) as jobs,
    (select count(*)::int from credit_ledger where account_id = ${accountId}
      and created_at >= ${new Date(from).toISOString()}::timestamptz and created_at < ${new Date(to).toISOString()}::timestamptz) as entries`);
  return counts;
}

describe("a usage summary over a period that cuts days and hours", () => {
  it("reads rollup rows bounded by its days, its partial days' hours and its partial hours' minutes, and the rows of its two cut minutes only", async () => {
    const parts = periodParts(new Date(start()), new Date(end()), new Date(now + hourMs));
    const time = ([from, to]: [Date, Date]) => [from.getTime(), to.getTime()] as const;
    const span = (ranges: [Date, Date][], unit: number) =>
      ranges.map(time).reduce((sum, [from, to]) => sum + (to - from) / unit, 0);
    const wholeDays = span([parts.days], 24 * hourMs);
    const wholeHours = span(parts.hours, hourMs);
    const wholeMinutes = span(parts.minutes, minuteMs);
    // 359 whole hours: 14 whole days, and the 23 hours of the two partial days around them.
    expect([wholeDays, wholeHours, wholeMinutes]).toEqual([14, 15 * 24 - 1 - 14 * 24, 42 + 43]);
    // The hours cut are busy (an hour's work is 3,600 jobs), their cut minutes hold a minute's work at most.
    let inCutHours = 0;
    let inCutMinutes = 0;
    for (const [from, to] of parts.rows.map(time)) {
      inCutHours += (await rowsBetween(Math.floor(from / hourMs) * hourMs, Math.ceil(to / hourMs) * hourMs)).jobs;
      const inMinute = await rowsBetween(from, to);
      expect(inMinute.jobs).toBeLessThanOrEqual(60);
      // Each job of the range once; each entry once, and its job by its primary key.
      inCutMinutes += inMinute.jobs + 2 * inMinute.entries;
    }
    expect(inCutHours).toBeGreaterThan(2 * busyHour);
    expect(inCutMinutes).toBeGreaterThan(0);

    const [{ dayRows }] = await rowsOf<{ dayRows: number }>(
      sql`select count(*)::int as "dayRows" from usage_day_rollups`,
    );
    const statements = usageRollupStatements(await db(), accountId, parts);
    const partial = partialMinutesStatement(await db(), accountId, parts.rows);
    for (const generic of [false, true]) {
      for (const statement of [statements.counts, statements.buckets]) {
        const examined = await rowsExamined(statement, generic);
        // One service, one key: a rollup row per day, per hour and per minute at most, the deltas not folded yet
        // (none here: the history was seeded as rollups), and no job or ledger row.
        expect(Object.keys(examined).sort()).toEqual([
          "usage_day_rollups",
          "usage_deltas",
          "usage_minute_rollups",
          "usage_rollups",
        ]);
        expect(examined.usage_deltas).toBe(0);
        // (The day rollups' table is a single page here, 61 rows, which PostgreSQL may read whole instead of
        // through its index: the bound that matters is the hour rollups', 23 of the period's 359 whole hours.)
        expect(examined.usage_day_rollups).toBeLessThanOrEqual(Math.max(wholeDays, dayRows));
        expect(examined.usage_rollups).toBeLessThanOrEqual(wholeHours);
        expect(examined.usage_minute_rollups).toBeLessThanOrEqual(wholeMinutes);
      }
      const examined = await rowsExamined(partial, generic);
      expect((examined.jobs ?? 0) + (examined.credit_ledger ?? 0)).toBeLessThanOrEqual(inCutMinutes);
    }
  });

  it("counts that period's jobs and credits to the millisecond, as the rows do", async () => {
    const summary = await getUsageSummary(accountId, {
      periodStart: new Date(start()),
      periodEnd: new Date(end()),
    });
    const [from, to] = [new Date(start()).toISOString(), new Date(end()).toISOString()];
    expect([summary.periodStart, summary.periodEnd]).toEqual([from, to]);
    const [expected] = await rowsOf<{ jobs: number; failed: number; used: number }>(sql`select
      (select count(*)::int from jobs where account_id = ${accountId}
        and created_at between ${from}::timestamptz and ${to}::timestamptz) as jobs,
      (select count(*)::int from jobs where account_id = ${accountId} and status = 'failed'
        and created_at between ${from}::timestamptz and ${to}::timestamptz) as failed,
      (select -sum(amount)::int from credit_ledger where account_id = ${accountId}
        and created_at between ${from}::timestamptz and ${to}::timestamptz) as used`);
    expect(expected.jobs).toBeGreaterThan(1000);
    expect(summary).toMatchObject({
      totalJobs: expected.jobs,
      failedJobs: expected.failed,
      completedJobs: expected.jobs - expected.failed,
      creditsUsed: expected.used,
      avgDurationMs: 40,
    });
  });
});
