// Retention (JOB_RETENTION_DAYS, issue 43): the events and log lines of jobs that ended long enough ago are
// deleted in batches from a cursor; a job that has not ended keeps every row however old it is, and the job rows,
// the credit ledger and the usage rollups are left as they were.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/domain/database";
import { claimJobs } from "@/lib/engine/claims";
import { completeExecution } from "@/lib/engine/node-reports";
import { pruneOldJobRows } from "@/lib/engine/retention";
import { engineNode, foldAllUsage, rowsOf } from "../support/engine";
import { submit } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0, env: { RATE_LIMIT_PER_MINUTE: "0", ACCOUNT_RATE_PER_MINUTE: "0" } });
const days = 30;

/** Moves a job back in time, as if it had been created (and, if it ended, ended) `ago` days ago. */
async function age(jobId: string, ago: number) {
  await (
    await db()
  ).execute(sql`update jobs set created_at = created_at - make_interval(days => ${ago}::int),
      completed_at = completed_at - make_interval(days => ${ago}::int) where id = ${jobId}`);
}

const rowsOfJob = async (jobId: string) => {
  const [counts] = await rowsOf<{ events: number; logs: number; jobs: number }>(sql`select
      (select count(*)::int from job_events where job_id = ${jobId}) as events,
      (select count(*)::int from job_logs where job_id = ${jobId}) as logs,
      (select count(*)::int from jobs where id = ${jobId}) as jobs`);
  return counts;
};
const kept = async () => {
  await foldAllUsage();
  return Promise.all([
    rowsOf(sql`select * from usage_rollups order by account_id, hour, service_id, api_key_id`),
    rowsOf(sql`select * from usage_minute_rollups order by account_id, minute, service_id, api_key_id`),
    rowsOf(sql`select * from usage_day_rollups order by account_id, day, service_id, api_key_id`),
    rowsOf(sql`select id, amount, balance_after from credit_ledger order by seq`),
  ]);
};

let old: string[];
let running: string;
let recent: string;

beforeAll(async () => {
  const submitted = [];
  for (let i = 0; i < 4; i++)
    submitted.push((await submit(ctx.dev, ctx.key, "token-count", { text: `job ${i}` })).jobId);
  const node = await engineNode("retention", ["token-count"], 8);
  const claimed = await claimJobs(node, 8, 0, undefined, { start: true });
  expect(claimed).toHaveLength(4);
  // Three end; the fourth stays running (its node never reports).
  [old, running] = [submitted.slice(0, 2), submitted[3]];
  recent = submitted[2];
  for (const job of claimed.filter((c) => c.jobId !== running))
    await completeExecution(node, job.jobId, job.attempt, { summary: "done", output: {} });
  for (const jobId of [...old, running]) await age(jobId, days + 5);
});

describe("pruning the rows of jobs that ended more than JOB_RETENTION_DAYS ago", () => {
  it("deletes their events and log lines, a batch at a time, and keeps the job rows, the ledger and the rollups", async () => {
    const before = await kept();
    const running0 = await rowsOfJob(running);
    const recent0 = await rowsOfJob(recent);
    expect(running0.events).toBeGreaterThan(0);

    // Other developers' old jobs (earlier tests, other files) may come first: prune until this file's are gone.
    let batches = 0;
    for (;;) {
      const pruned = await pruneOldJobRows(await db(), days, 1);
      batches++;
      if (pruned.jobs === 0) break;
      expect(pruned.jobs).toBe(1);
    }
    expect(batches).toBeGreaterThanOrEqual(3);

    for (const jobId of old) expect(await rowsOfJob(jobId)).toEqual({ events: 0, logs: 0, jobs: 1 });
    // The running job is as old, and keeps everything; the one that ended lately too.
    expect(await rowsOfJob(running)).toEqual(running0);
    expect(await rowsOfJob(recent)).toEqual(recent0);
    expect(await kept()).toEqual(before);
  });

  it("reads on from its cursor: a job that ends later is pruned once old enough, nothing is read twice", async () => {
    expect(await pruneOldJobRows(await db(), days)).toEqual({ jobs: 0, events: 0, logs: 0 });
    await age(recent, days + 1);
    const pruned = await pruneOldJobRows(await db(), days);
    expect(pruned.jobs).toBe(1);
    expect(await rowsOfJob(recent)).toEqual({ events: 0, logs: 0, jobs: 1 });
    expect((await rowsOfJob(running)).events).toBeGreaterThan(0);
  });

  it("the job's telemetry is then empty, and the job itself reads as before", async () => {
    const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${old[0]}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ jobId: old[0], status: "completed" });
    const telemetry = await (await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${old[0]}/telemetry`)).json();
    expect(telemetry.data).toEqual([]);
    // Its total says what the page shows: none left, not the count the job once had.
    expect(telemetry.pagination).toMatchObject({ total: 0, totalPages: 0, hasMore: false });
  });

  it("a job that has not ended still counts all its telemetry", async () => {
    const telemetry = await (await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${running}/telemetry`)).json();
    expect(telemetry.data.length).toBeGreaterThan(0);
    expect(telemetry.pagination.total).toBe(telemetry.data.length);
  });
});
