// Usage (CONTRACT §6): GET /api/developers/metrics sums up a developer's jobs and credits over a period.
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { UsageSummary as UsageSummarySchema } from "@/lib/contract/schemas";
import { signUpDeveloper } from "../support/developer";
import { submit, waitForStatus, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";
import { expectError } from "../support/expect-error";

type UsageSummary = z.infer<typeof UsageSummarySchema>;

const dayMs = 24 * 3600 * 1000;
/** Blank text: text-sentiment refuses it on the node (EMPTY_TEXT), fails at once and refunds its credit. */
const blankText = "   ";

/** Oldest first: token-count ✓, text-summarize ✓, text-sentiment ✗, token-count ✓, text-sentiment ✗. */
let jobs: JobView[];

const ctx = withDeveloper();

beforeAll(async () => {
  const plan: [string, Record<string, unknown>][] = [
    ["token-count", { text: "Counting the tokens of a first sentence." }],
    [
      "text-summarize",
      {
        text: "Rivers carry water to the sea. Rain feeds the rivers. The sea gives back rain through clouds.",
        sentences: 1,
      },
    ],
    ["text-sentiment", { text: blankText }],
    ["token-count", { text: "Counting the tokens of another sentence." }],
    ["text-sentiment", { text: blankText }],
  ];
  // Each job ends before the next starts, so a period starting at a job's creation holds exactly the
  // later jobs and their charges and refunds.
  jobs = [];
  for (const [serviceId, input] of plan)
    jobs.push(await waitForStatus(ctx.dev, ctx.key, (await submit(ctx.dev, ctx.key, serviceId, input)).jobId));
});

async function metrics(
  query = "",
  fetchWith: (path: string) => Promise<Response> = (path) => ctx.dev.withKey(ctx.key, path),
) {
  const res = await fetchWith(`/api/developers/metrics${query ? `?${query}` : ""}`);
  expect(res.status).toBe(200);
  return (await res.json()) as UsageSummary;
}

const byServiceId = (rows: UsageSummary["byService"]) =>
  [...rows].sort((a, b) => a.serviceId.localeCompare(b.serviceId));
const durationOf = (job: JobView) => Date.parse(String(job.completedAt)) - Date.parse(String(job.createdAt));
const future = () => Date.now() + dayMs;

describe("GET /api/developers/metrics after 3 completed and 2 failed jobs", () => {
  it("jobs have run as planned", () => {
    expect(jobs.map((j) => j.status)).toEqual(["completed", "completed", "failed", "completed", "failed"]);
    expect(jobs[2].error).toMatchObject({ code: "EMPTY_TEXT" });
  });

  it("counts the jobs, none of them active, and the success rate of final jobs", async () => {
    const usage = await metrics();
    expect(usage).toMatchObject({ totalJobs: 5, completedJobs: 3, failedJobs: 2, activeJobs: 0 });
    expect(usage.successRate).toBeCloseTo(3 / 5, 10);
  });

  it("charges minus refunds: the failed jobs cost nothing in the end", async () => {
    const usage = await metrics();
    expect(usage.creditsUsed).toBe(1 + 2 + 1);

    const history = (await (await ctx.dev.withKey(ctx.key, "/api/credits/history?limit=100")).json()) as {
      data: { type: string; amount: number }[];
    };
    const spent = -history.data
      .filter((e) => e.type === "charge" || e.type === "refund")
      .reduce((sum, e) => sum + e.amount, 0);
    expect(usage.creditsUsed).toBe(spent);
    expect(history.data.filter((e) => e.type === "refund")).toHaveLength(2);
  });

  it("breaks the jobs and credits down by service", async () => {
    const usage = await metrics();
    expect(byServiceId(usage.byService)).toEqual([
      { serviceId: "text-sentiment", jobs: 2, completed: 0, failed: 2, creditsUsed: 0 },
      { serviceId: "text-summarize", jobs: 1, completed: 1, failed: 0, creditsUsed: 2 },
      { serviceId: "token-count", jobs: 2, completed: 2, failed: 0, creditsUsed: 2 },
    ]);
  });

  it("counts today's jobs under today's UTC date, YYYY-MM-DD", async () => {
    const usage = await metrics();
    const dates = [...new Set(jobs.map((j) => String(j.createdAt).slice(0, 10)))];
    expect(usage.byDay.map((d) => d.date)).toEqual(dates);
    for (const day of usage.byDay) expect(day.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(usage.byDay.reduce((sum, d) => sum + d.jobs, 0)).toBe(5);
    expect(usage.byDay.reduce((sum, d) => sum + d.creditsUsed, 0)).toBe(4);
  });

  it("reports the exact average and the 95th percentile (linear interpolation) within 2.5 %", async () => {
    const usage = await metrics();
    const durations = jobs.map(durationOf).sort((a, b) => a - b);
    const average = durations.reduce((a, b) => a + b, 0) / durations.length;
    // percentile_cont(0.95): the value at rank 0.95·(n−1), interpolated between its neighbours.
    const rank = 0.95 * (durations.length - 1);
    const below = durations[Math.floor(rank)];
    const p95 = below + (rank - Math.floor(rank)) * (durations[Math.ceil(rank)] - below);
    // The average is exact (rounded to the millisecond); the percentile is read from log-scale buckets of ratio
    // 1.05, each within 2.5 % of the durations it holds (lib/domain/usage-rollups.ts), then rounded.
    expect(usage.avgDurationMs).toBe(Math.round(average));
    expect(Math.abs(Number(usage.p95DurationMs) - p95)).toBeLessThanOrEqual(p95 * 0.025 + 1);
  });

  it("covers the last 30 days by default, from the start of a UTC hour", async () => {
    const usage = await metrics();
    const span = Date.parse(usage.periodEnd) - Date.parse(usage.periodStart);
    expect(span).toBeGreaterThanOrEqual(30 * dayMs);
    expect(span).toBeLessThan(30 * dayMs + 3600_000);
    expect(Date.parse(usage.periodStart) % 3600_000).toBe(0);
    expect(Date.parse(usage.periodStart)).toBeLessThanOrEqual(Date.parse(String(jobs[0].createdAt)));
  });
});

describe("the period of the metrics", () => {
  it("starts at an ISO-8601 time, inclusive: only the jobs created since then", async () => {
    const periodStart = String(jobs[2].createdAt);
    const periodEnd = new Date(future()).toISOString();
    const usage = await metrics(
      `periodStart=${encodeURIComponent(periodStart)}&periodEnd=${encodeURIComponent(periodEnd)}`,
    );
    expect(usage).toMatchObject({
      periodStart,
      periodEnd,
      totalJobs: 3,
      completedJobs: 1,
      failedJobs: 2,
      activeJobs: 0,
      creditsUsed: 1,
    });
    expect(usage.successRate).toBeCloseTo(1 / 3, 10);
    expect(byServiceId(usage.byService)).toEqual([
      { serviceId: "text-sentiment", jobs: 2, completed: 0, failed: 2, creditsUsed: 0 },
      { serviceId: "token-count", jobs: 1, completed: 1, failed: 0, creditsUsed: 1 },
    ]);
  });

  it("reads epoch milliseconds exactly like ISO-8601", async () => {
    const start = Date.parse(String(jobs[2].createdAt));
    const end = future();
    const epoch = await metrics(`periodStart=${start}&periodEnd=${end}`);
    const iso = await metrics(`periodStart=${new Date(start).toISOString()}&periodEnd=${new Date(end).toISOString()}`);
    expect(epoch).toEqual(iso);
    expect(epoch.periodStart).toBe(new Date(start).toISOString());
    expect(epoch.totalJobs).toBe(3);
  });

  it("ends at periodEnd, inclusive", async () => {
    const usage = await metrics(
      `periodStart=${Date.parse(String(jobs[0].createdAt))}&periodEnd=${Date.parse(String(jobs[1].createdAt))}`,
    );
    expect(usage).toMatchObject({ totalJobs: 2, completedJobs: 2, failedJobs: 0, creditsUsed: 1 + 2 });
    expect(usage.successRate).toBe(1);
  });

  it("is all zeros for a period in the past", async () => {
    const usage = await metrics("periodStart=2020-01-01T00:00:00.000Z&periodEnd=2020-01-31T23:59:59.999Z");
    expect(usage).toMatchObject({
      periodStart: "2020-01-01T00:00:00.000Z",
      periodEnd: "2020-01-31T23:59:59.999Z",
      totalJobs: 0,
      completedJobs: 0,
      failedJobs: 0,
      activeJobs: 0,
      creditsUsed: 0,
      successRate: 0,
      byService: [],
      byDay: [],
    });
    // No job ended in the period, so there is no duration to report.
    expect([null, 0]).toContain(usage.avgDurationMs);
    expect([null, 0]).toContain(usage.p95DurationMs);
  });

  it.each([
    "periodStart=not-a-date",
    "periodEnd=2024-13-01T00:00:00Z",
    "periodStart=",
    "periodStart=2024-06-02T00:00:00Z&periodEnd=2024-06-01T00:00:00Z",
  ])("refuses a bad period (%s) with 400 INVALID_REQUEST", async (query) => {
    await expectError(await ctx.dev.withKey(ctx.key, `/api/developers/metrics?${query}`), 400, "INVALID_REQUEST");
  });
});

describe("who may read the metrics", () => {
  it("an API key with only credits:read, and the wallet session, see the same summary", async () => {
    const creditsOnly = await ctx.dev.createApiKey(["credits:read"]);
    const query = `periodStart=${Date.parse(String(jobs[0].createdAt))}&periodEnd=${future()}`;
    const withKey = await metrics(query, (path) => ctx.dev.withKey(creditsOnly, path));
    const withSession = await metrics(query, (path) => ctx.dev.session(path));
    expect(withKey.totalJobs).toBe(5);
    expect(withSession).toEqual(withKey);
  });

  it("not a key without credits:read (403 naming the scope), nor nobody (401)", async () => {
    const jobsOnly = await ctx.dev.createApiKey(["jobs:read"]);
    const error = await expectError(
      await ctx.dev.withKey(jobsOnly, "/api/developers/metrics"),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(error.details).toEqual({ requiredScope: "credits:read" });
    expect((await fetch(`${ctx.server.baseUrl}/api/developers/metrics`)).status).toBe(401);
  });

  it("another developer's summary is empty: metrics are per developer", async () => {
    const other = await signUpDeveloper(ctx.server.baseUrl, { name: "Grace Other" });
    const usage = await metrics("", (path) => other.session(path));
    expect(usage).toMatchObject({
      totalJobs: 0,
      completedJobs: 0,
      failedJobs: 0,
      creditsUsed: 0,
      byService: [],
      byDay: [],
    });
  });
});
