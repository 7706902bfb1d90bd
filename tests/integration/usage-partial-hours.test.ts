// A usage summary whose period cuts hours (issue 43): its whole hours come from the rollups, and each partial
// hour at its start or end from the jobs and ledger rows themselves, by statements that each read one index
// range over that hour. The rows they examine (EXPLAIN ANALYZE, on a seeded history, after ANALYZE) follow the
// hour's work, never the account's history.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/domain/database";
import { getUsageSummary, partialHoursStatement } from "@/lib/domain/usage";
import { rowsOf } from "../support/engine";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0 });
const hourMs = 3600_000;
/** One developer's history: this many jobs over 60 days (about 14 an hour), every tenth failed and refunded. */
const history = 20_000;

let accountId: string;
let now: number;

beforeAll(async () => {
  [{ id: accountId }] = await rowsOf<{ id: string }>(
    sql`select id from accounts where lower(wallet_address) = lower(${ctx.dev.address})`,
  );
  now = Date.now();
  const step = (60 * 24 * hourMs) / history;
  // Written by SQL as the product stores them (jobs, charges, refunds and their rollups): the API would take minutes.
  await rowsOf(sql`create temporary table seeded as
    select gen_random_uuid() as id, g, to_timestamp((${now}::float8 - ${step}::float8 * g) / 1000) as created_at,
      case when g % 10 = 0 then 'failed' else 'completed' end as status
    from generate_series(1, ${history}::int) g`);
  await rowsOf(sql`insert into jobs (id, account_id, service_id, status, progress, input, credit_cost, max_attempts,
      timeout_ms, attempt, created_at, updated_at, completed_at, charged_at)
    select id, ${accountId}::uuid, 'token-count', status, 100, '{}'::jsonb, 2, 1, 60000, 1, created_at,
      created_at + interval '40 ms', created_at + interval '40 ms', created_at from seeded`);
  await rowsOf(sql`insert into credit_ledger (account_id, type, amount, balance_after, job_id, description, created_at)
    select ${accountId}::uuid, 'charge', -2, 0, id, 'token-count job', created_at from seeded
    union all select ${accountId}::uuid, 'refund', 2, 0, id, 'Refund: job failed', created_at + interval '40 ms'
    from seeded where status = 'failed'`);
  await rowsOf(sql`insert into usage_rollups (account_id, hour, service_id, api_key_id, jobs, completed, failed,
      credits_charged, credits_refunded, duration_count, duration_sum_ms, durations)
    select ${accountId}::uuid, date_trunc('hour', created_at, 'UTC'), 'token-count', '00000000-0000-0000-0000-000000000000',
      count(*), count(*) filter (where status = 'completed'), count(*) filter (where status = 'failed'), 2 * count(*),
      0, count(*), 40 * count(*), jsonb_build_object((1 + floor(ln(40) / ln(1.05))::int)::text, count(*))
    from seeded group by 2`);
  // A refund 40 ms after its job's creation may fall in the next hour: it counts there, as the product counts it.
  await rowsOf(sql`insert into usage_rollups as u (account_id, hour, service_id, api_key_id, credits_refunded)
    select ${accountId}::uuid, date_trunc('hour', created_at + interval '40 ms', 'UTC'), 'token-count',
      '00000000-0000-0000-0000-000000000000', 2 * count(*)
    from seeded where status = 'failed' group by 2
    on conflict (account_id, hour, service_id, api_key_id)
    do update set credits_refunded = u.credits_refunded + excluded.credits_refunded`);
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
 * The rows of jobs and credit_ledger a statement examined (those it kept and those its filters threw away), run
 * as the server runs it, a prepared statement, with the plan PostgreSQL makes for its values or (`generic`) the
 * one it settles on after five runs, made without them.
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
  const walk = (node: PlanNode): number =>
    (node["Relation Name"] === "jobs" || node["Relation Name"] === "credit_ledger"
      ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) *
        node["Actual Loops"]
      : 0) + (node.Plans ?? []).reduce((sum, child) => sum + walk(child), 0);
  return walk(root);
}

async function rowsBetween(from: number, to: number) {
  const [counts] = await rowsOf<{ jobs: number; entries: number }>(sql`select
    (select count(*)::int from jobs where account_id = ${accountId}
      and created_at >= ${new Date(from).toISOString()}::timestamptz and created_at < ${new Date(to).toISOString()}::timestamptz) as jobs,
    (select count(*)::int from credit_ledger where account_id = ${accountId}
      and created_at >= ${new Date(from).toISOString()}::timestamptz and created_at < ${new Date(to).toISOString()}::timestamptz) as entries`);
  return counts;
}

describe("a usage summary over a period that cuts hours", () => {
  // 20 days and a few hours back, starting 17 minutes into an hour and ending 43 minutes into one.
  const start = () => Math.floor((now - 20 * 24 * hourMs) / hourMs) * hourMs + 17 * 60_000 + 123;
  const end = () => start() + 5 * 24 * hourMs + 26 * 60_000;

  it("reads each partial hour from one index range: the rows examined are those hours', not the history's", async () => {
    const edges: [Date, Date][] = [
      [start(), Math.ceil(start() / hourMs) * hourMs],
      [Math.floor((end() + 1) / hourMs) * hourMs, end() + 1],
    ].map(([from, to]) => [new Date(from), new Date(to)]);
    let inEdges = 0;
    for (const [from, to] of edges) {
      const inEdge = await rowsBetween(from.getTime(), to.getTime());
      expect(inEdge.jobs).toBeGreaterThan(0);
      // Each job of the range once; each entry once, and its job by its primary key.
      inEdges += inEdge.jobs + 2 * inEdge.entries;
    }
    const statement = partialHoursStatement(await db(), accountId, edges);
    expect(await rowsExamined(statement, false)).toBeLessThanOrEqual(inEdges);
    expect(await rowsExamined(statement, true)).toBeLessThanOrEqual(inEdges);
  });

  it("counts that period's jobs and credits to the millisecond, as the rows do", async () => {
    const summary = await getUsageSummary(accountId, {
      periodStart: new Date(start()),
      periodEnd: new Date(end()),
    });
    const [expected] = await rowsOf<{ jobs: number; failed: number; used: number }>(sql`select
      (select count(*)::int from jobs where account_id = ${accountId}
        and created_at between ${new Date(start()).toISOString()}::timestamptz and ${new Date(end()).toISOString()}::timestamptz) as jobs,
      (select count(*)::int from jobs where account_id = ${accountId} and status = 'failed'
        and created_at between ${new Date(start()).toISOString()}::timestamptz and ${new Date(end()).toISOString()}::timestamptz) as failed,
      (select -sum(amount)::int from credit_ledger where account_id = ${accountId}
        and created_at between ${new Date(start()).toISOString()}::timestamptz and ${new Date(end()).toISOString()}::timestamptz) as used`);
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
