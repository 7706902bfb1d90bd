// Usage rollups (issue 43): after any mix of submissions, completions, failures, cancellations and own-node
// refunds, across hour and day boundaries (the spend clock moved, never waited for), the usage summary of any
// period (cutting days, hours and minutes with work in them) equals the one counted from the jobs and ledger rows,
// before the work's usage deltas are folded and after; and once folded, the rollups, per hour, per minute and per
// day, equal a recount of those rows.
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setSpendClock } from "@/lib/domain/spend-controls";
import { getUsageSummary, periodParts } from "@/lib/domain/usage";
import { durationBucket, bucketValueMs, noKeyId, usageRollupSql } from "@/lib/domain/usage-rollups";
import { claimJobs } from "@/lib/engine/claims";
import { completeExecution, failExecution } from "@/lib/engine/node-reports";
import { authenticateNode, registerNode, type NodeRow } from "@/lib/network/coordinator";
import { signUpDeveloper, type Developer } from "../support/developer";
import { engineNode, foldAllUsage, rowsOf } from "../support/engine";
import { startTestServer } from "../support/test-server";

const ctx = {} as { baseUrl: string; close(): Promise<void> };
const minuteMs = 60_000;
const hourMs = 3600_000;
const dayMs = 24 * hourMs;
const services = ["token-count", "text-summarize", "text-sentiment"] as const;

let network: NodeRow;
beforeAll(async () => {
  const server = await startTestServer({
    embeddedNodes: 0,
    env: {
      STARTER_CREDITS: "100000",
      RATE_LIMIT_PER_MINUTE: "0",
      ACCOUNT_RATE_PER_MINUTE: "0",
      JOB_MAX_ATTEMPTS: "1",
      // The test folds the usage deltas itself: the summaries are read with every delta unfolded, then folded.
      SWEEP_INTERVAL_MS: "3600000",
    },
  });
  Object.assign(ctx, { baseUrl: server.baseUrl, close: () => server.close() });
  network = await engineNode("rollups-network", [...services], 64);
});
afterAll(() => ctx.close?.());
afterEach(() => setSpendClock(null));

type Action =
  | { kind: "submit"; service: number; key: number; placement: "any" | "network"; count: number }
  | { kind: "clock"; hours: number }
  /** The spend clock set to a time, or back to the real one (null). */
  | { kind: "at"; at: number | null }
  | { kind: "run"; own: boolean; outcomes: boolean[] }
  | { kind: "cancel"; which: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant("submit" as const),
    service: fc.nat({ max: services.length - 1 }),
    key: fc.nat({ max: 1 }),
    placement: fc.constantFrom("any" as const, "network" as const),
    count: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant("clock" as const), hours: fc.integer({ min: 1, max: 14 }) }),
  fc.record({
    kind: fc.constant("run" as const),
    own: fc.boolean(),
    outcomes: fc.array(fc.boolean(), { maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant("cancel" as const), which: fc.nat() }),
);

/** A developer with two keys and a node of their own (their `any` jobs it completes are refunded in full). */
async function developerWithOwnNode() {
  const dev = await signUpDeveloper(ctx.baseUrl);
  const keys = [await dev.createApiKey(), await dev.createApiKey()];
  const created = await dev.session("/api/developers/nodes", {
    method: "POST",
    body: JSON.stringify({ name: "own", serviceIds: ["token-count", "text-summarize"], concurrency: 8 }),
  });
  const { token } = (await created.json()) as { token: string };
  await registerNode(await authenticateNode(token), {
    name: "own",
    region: "test",
    serviceIds: ["token-count", "text-summarize"],
    concurrency: 8,
  });
  return { dev, keys, own: await authenticateNode(token) };
}

async function play(actions: Action[]) {
  const { dev, keys, own } = await developerWithOwnNode();
  // Five days ago, half an hour before midnight UTC: the clock's steps cross hours and days, and stay in the
  // past, so every job's duration (completed now, by the database's clock) is positive.
  let now = Math.floor(Date.now() / (24 * hourMs) - 5) * 24 * hourMs - hourMs / 2;
  setSpendClock(() => new Date(now));
  const submitted: string[] = [];
  for (const a of actions) {
    if (a.kind === "at") {
      if (a.at === null) setSpendClock(null);
      else setSpendClock(() => new Date((now = a.at ?? now)));
    } else if (a.kind === "clock") now += a.hours * hourMs - 7_000;
    else if (a.kind === "submit") {
      const answers = await Promise.all(
        Array.from({ length: a.count }, (_, i) =>
          dev.withKey(keys[a.key], `/api/marketplace/services/${services[a.service]}/execute`, {
            method: "POST",
            body: JSON.stringify({ input: { text: `Job ${i}. Of the rollups test.` }, placement: a.placement }),
          }),
        ),
      );
      for (const res of answers) {
        expect(res.status).toBe(202);
        submitted.push(((await res.json()) as { jobId: string }).jobId);
      }
    } else if (a.kind === "cancel") {
      if (submitted.length === 0) continue;
      const res = await dev.withKey(keys[0], `/api/developers/jobs/${submitted[a.which % submitted.length]}/cancel`, {
        method: "POST",
      });
      expect([200, 409]).toContain(res.status);
    } else {
      const claimed = await claimJobs(a.own ? own : network, a.outcomes.length, 0, undefined, { start: true });
      // Completions and failures written concurrently, as nodes report them.
      await Promise.all(
        claimed.map((job, i) =>
          a.outcomes[i]
            ? completeExecution(a.own ? own : network, job.jobId, job.attempt, { summary: "ok", output: {} })
            : failExecution(a.own ? own : network, job.jobId, job.attempt, {
                code: "BROKEN",
                message: "failed on purpose",
                retryable: false,
              }),
        ),
      );
    }
  }
  return { dev, accountId: await accountIdOf(dev) };
}

async function accountIdOf(dev: Developer): Promise<string> {
  const me = (await (await dev.session("/api/developers/me")).json()) as { developerId?: string; id?: string };
  return String(me.developerId ?? me.id);
}

interface RawJob {
  created_at: Date;
  completed_at: Date | null;
  status: string;
  service_id: string;
  key_id: string;
}
interface RawEntry {
  created_at: Date;
  type: string;
  amount: number;
  service_id: string;
  key_id: string;
}

async function rawRows(accountId: string) {
  const jobs = await rowsOf<RawJob>(sql`select created_at, completed_at, status, service_id,
      coalesce(api_key_id::text, ${noKeyId}) as key_id from jobs where account_id = ${accountId}`);
  const entries = await rowsOf<RawEntry>(sql`select l.created_at, l.type, l.amount::int as amount, j.service_id,
      coalesce(j.api_key_id::text, ${noKeyId}) as key_id
    from credit_ledger l join jobs j on j.id = l.job_id
    where l.account_id = ${accountId} and l.type in ('charge', 'refund')`);
  const at = (v: Date | string) => new Date(v).getTime();
  return {
    jobs: jobs.map((j) => ({ ...j, at: at(j.created_at), end: j.completed_at === null ? null : at(j.completed_at) })),
    entries: entries.map((e) => ({ ...e, at: at(e.created_at), amount: Number(e.amount) })),
  };
}
type Raw = Awaited<ReturnType<typeof rawRows>>;
const durationOf = (j: Raw["jobs"][number]) => (j.end === null ? null : Math.max(0, j.end - j.at));

/** The rollups as they should be, per `unitMs` (an hour, a minute): counted here from the rows, in JavaScript. */
function recount({ jobs, entries }: Raw, unitMs: number) {
  const rows = new Map<string, Record<string, number>>();
  const row = (at: number, service: string, key: string) => {
    const id = `${new Date(Math.floor(at / unitMs) * unitMs).toISOString()} ${service} ${key}`;
    let r = rows.get(id);
    if (!r)
      rows.set(
        id,
        (r = { jobs: 0, completed: 0, failed: 0, charged: 0, refunded: 0, durationCount: 0, durationSumMs: 0 }),
      );
    return r;
  };
  for (const j of jobs) {
    const r = row(j.at, j.service_id, j.key_id);
    r.jobs++;
    if (j.status === "completed") r.completed++;
    if (j.status === "failed") r.failed++;
    const ms = durationOf(j);
    if (ms !== null) {
      r.durationCount++;
      r.durationSumMs += ms;
      r[`bucket ${durationBucket(ms)}`] = (r[`bucket ${durationBucket(ms)}`] ?? 0) + 1;
    }
  }
  for (const e of entries) {
    const r = row(e.at, e.service_id, e.key_id);
    if (e.type === "charge") r.charged -= e.amount;
    else r.refunded += e.amount;
  }
  return Object.fromEntries([...rows].sort(([a], [b]) => a.localeCompare(b)));
}

/** The rows of the hour, minute or day rollups. */
async function rollupsOf(accountId: string, unit: "hour" | "minute" | "day") {
  const rows = await rowsOf<{
    at: Date;
    service_id: string;
    api_key_id: string;
    jobs: string;
    completed: string;
    failed: string;
    credits_charged: string;
    credits_refunded: string;
    duration_count: string;
    duration_sum_ms: string;
    durations: Record<string, number> | string;
  }>(
    {
      hour: sql`select *, hour as at from usage_rollups where account_id = ${accountId}`,
      minute: sql`select *, minute as at from usage_minute_rollups where account_id = ${accountId}`,
      day: sql`select *, day as at from usage_day_rollups where account_id = ${accountId}`,
    }[unit],
  );
  return Object.fromEntries(
    rows
      .map((r) => {
        const durations = typeof r.durations === "string" ? JSON.parse(r.durations) : r.durations;
        return [
          `${new Date(r.at).toISOString()} ${r.service_id} ${r.api_key_id}`,
          {
            jobs: Number(r.jobs),
            completed: Number(r.completed),
            failed: Number(r.failed),
            charged: Number(r.credits_charged),
            refunded: Number(r.credits_refunded),
            durationCount: Number(r.duration_count),
            durationSumMs: Number(r.duration_sum_ms),
            ...Object.fromEntries(Object.entries(durations).map(([b, n]) => [`bucket ${b}`, Number(n)])),
          },
        ] as const;
      })
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** The usage summary of [start, end] counted from the rows (CONTRACT §6), with the exact 95th percentile. */
function summaryFromRows({ jobs, entries }: Raw, start: number, end: number) {
  const inPeriod = jobs.filter((j) => j.at >= start && j.at <= end);
  const spent = entries.filter((e) => e.at >= start && e.at <= end);
  const used = (list: typeof spent) => list.reduce((sum, e) => sum - e.amount, 0);
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const durations = inPeriod
    .map(durationOf)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  const rank = 0.95 * (durations.length - 1);
  const below = durations[Math.floor(rank)];
  const p95 = durations.length ? below + (rank - Math.floor(rank)) * (durations[Math.ceil(rank)] - below) : null;
  const counts = (list: typeof inPeriod) => ({
    jobs: list.length,
    completed: list.filter((j) => j.status === "completed").length,
    failed: list.filter((j) => j.status === "failed").length,
  });
  const keys = new Set([...inPeriod.map((j) => j.service_id), ...spent.map((e) => e.service_id)]);
  const days = new Set([...inPeriod.map((j) => day(j.at)), ...spent.map((e) => day(e.at))]);
  const byService = [...keys].sort().map((serviceId) => {
    const c = counts(inPeriod.filter((j) => j.service_id === serviceId));
    return { serviceId, ...c, creditsUsed: used(spent.filter((e) => e.service_id === serviceId)) };
  });
  const byDay = [...days].sort().map((date) => ({
    date,
    jobs: inPeriod.filter((j) => day(j.at) === date).length,
    creditsUsed: used(spent.filter((e) => day(e.at) === date)),
  }));
  const byKey = new Map(
    [...new Set([...inPeriod.map((j) => j.key_id), ...spent.map((e) => e.key_id)])].map((key) => [
      key,
      {
        jobs: inPeriod.filter((j) => j.key_id === key).length,
        creditsUsed: used(spent.filter((e) => e.key_id === key)),
      },
    ]),
  );
  const total = counts(inPeriod);
  return {
    totals: {
      totalJobs: total.jobs,
      completedJobs: total.completed,
      failedJobs: total.failed,
      activeJobs: total.jobs - total.completed - total.failed,
      creditsUsed: used(spent),
      avgDurationMs: durations.length ? Math.round(durations.reduce((a, b) => a + b, 0) / durations.length) : null,
    },
    p95,
    byService,
    byDay,
    byKey,
  };
}

/** The usage summary of each period [start, end] is the one counted from the rows (`read`: the parts that held work). */
async function expectSummariesOfRows(
  accountId: string,
  raw: Raw,
  times: number[],
  bounds: number[][],
  read: Set<string>,
) {
  for (const [start, end] of bounds) {
    const summary = await getUsageSummary(accountId, { periodStart: new Date(start), periodEnd: new Date(end) });
    // Which parts of the period held work (a job's creation or a ledger entry): whole days, the whole hours of
    // partial days, the whole minutes of partial hours, the cut minutes.
    const parts = periodParts(new Date(start), new Date(end), new Date());
    const holdsWork = ([from, to]: [Date, Date]) => times.some((t) => t >= from.getTime() && t < to.getTime());
    if (holdsWork(parts.days)) read.add("days");
    if (parts.hours.some(holdsWork)) read.add("hours");
    if (parts.minutes.some(holdsWork)) read.add("minutes");
    if (parts.rows.some(holdsWork)) read.add("rows");
    const expected = summaryFromRows(raw, start, end);
    expect(summary).toMatchObject(expected.totals);
    expect(summary.byService).toEqual(expected.byService);
    expect(summary.byDay).toEqual(expected.byDay);
    expect(
      new Map(summary.byKey.map((k) => [k.keyId ?? noKeyId, { jobs: k.jobs, creditsUsed: k.creditsUsed }])),
    ).toEqual(expected.byKey);
    if (expected.p95 === null) expect(summary.p95DurationMs).toBeNull();
    else expect(Math.abs(Number(summary.p95DurationMs) - expected.p95)).toBeLessThanOrEqual(expected.p95 * 0.025 + 1);
  }
}

describe("usage rollups after random work", () => {
  it("equal a recount of the jobs and ledger rows once folded, and give every period's summary as the rows do, folded or not", async () => {
    const seen = new Set<string>();
    const read = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 3, maxLength: 14 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 1e6 })), {
          minLength: 3,
          maxLength: 3,
        }),
        async (actions, periods) => {
          const { accountId } = await play(actions);
          setSpendClock(null);
          const raw = await rawRows(accountId);
          for (const row of await rowsOf<{ what: string }>(sql`select description as what from credit_ledger
              where account_id = ${accountId} and type = 'refund' union all select 'day ' || to_char(created_at, 'YYYY-MM-DD')
              from jobs where account_id = ${accountId} union all select 'cancelled' from jobs
              where account_id = ${accountId} and error->>'code' = 'CANCELLED'`))
            seen.add(row.what.startsWith("day ") ? row.what : row.what.replace(/^Refund: [a-z-]+ /, ""));
          const unfolded = await rowsOf<{ n: number }>(
            sql`select count(*)::int as n from usage_deltas where account_id = ${accountId}`,
          );
          if (raw.jobs.length > 0) expect(unfolded[0].n).toBeGreaterThan(0);

          // Periods with random bounds to the millisecond over the times used (whole hours, whole minutes of
          // partial hours, and partial minutes).
          const times = [...raw.jobs.map((j) => j.at), ...raw.entries.map((e) => e.at)];
          const first = Math.min(...times, Date.now()) - hourMs;
          const last = Math.max(...times, Date.now()) + hourMs;
          const bounds = periods.map(([a, b]) => {
            // A third of the bounds anywhere in that range, a third within half an hour of a job or an entry (so
            // that the periods cut hours with work in them), a third within 30 s of one (minutes with work in them).
            const near = (f: number, step: number) =>
              times[Math.floor(f / 3) % times.length] + ((f % 120) - 60) * step + (f % 97);
            return [a, b]
              .map((f) =>
                f % 3 === 0 || times.length === 0
                  ? Math.round(first + (f / 1e6) * (last - first))
                  : near(f, f % 3 === 1 ? 30_000 : 500),
              )
              .sort((x, y) => x - y);
          });
          // Every summary as the rows give it, first with all the work's deltas unfolded, then folded.
          await expectSummariesOfRows(accountId, raw, times, bounds, read);
          await foldAllUsage(5);
          expect(await rollupsOf(accountId, "hour")).toEqual(recount(raw, hourMs));
          expect(await rollupsOf(accountId, "minute")).toEqual(recount(raw, minuteMs));
          expect(await rollupsOf(accountId, "day")).toEqual(recount(raw, dayMs));
          await expectSummariesOfRows(accountId, raw, times, bounds, read);
        },
      ),
      {
        numRuns: 6,
        seed: Number(process.env.ROLLUPS_SEED ?? 43),
        endOnFailure: true,
        // One run surely of each kind: an own node's completion (refunded) and failure, a cancellation, midnight.
        examples: [
          [
            [
              { kind: "submit", service: 1, key: 0, placement: "any", count: 3 },
              { kind: "clock", hours: 1 },
              { kind: "submit", service: 0, key: 1, placement: "network", count: 2 },
              { kind: "run", own: true, outcomes: [true, false] },
              { kind: "cancel", which: 2 },
              { kind: "run", own: false, outcomes: [true, false] },
            ],
            [
              [0, 1e6],
              [400_000, 600_000],
              // Both bounds anywhere: the whole range, whose whole days hold work.
              [0, 999_999],
            ],
          ],
        ],
      },
    );
    // The runs did what the test is for: failures, cancellations and own-node refunds, on several days.
    expect([...seen].filter((s) => !s.startsWith("day ")).sort()).toEqual([
      "cancelled",
      "job failed",
      "job ran on your own node",
    ]);
    expect([...seen].filter((s) => s.startsWith("day ")).length).toBeGreaterThanOrEqual(2);
    // And periods read work from every part: whole days, partial days' hours, partial hours' minutes, cut minutes.
    expect([...read].sort()).toEqual(["days", "hours", "minutes", "rows"]);
  });

  it("by default covers 30 days from an hour's start to now, read from the rollups, as a recount does", async () => {
    // The window starts at the UTC hour holding now − 30 days; work just before and after that start, and in the
    // current hour (completions and refunds included), which the default summary reads from its rollup.
    const start = Math.floor((Date.now() - 30 * 24 * hourMs) / hourMs) * hourMs;
    const submit = (count: number) => ({
      kind: "submit" as const,
      service: 0,
      key: 0,
      placement: "network" as const,
      count,
    });
    const run = { kind: "run" as const, own: false, outcomes: [true, false, true, false] };
    const { accountId } = await play([
      { kind: "at", at: start - 60_000 },
      submit(1),
      { kind: "at", at: start + 60_000 },
      submit(2),
      run,
      { kind: "at", at: null },
      submit(3),
      run,
    ]);
    const summary = await getUsageSummary(accountId, {});
    expect(summary.periodStart).toBe(new Date(start).toISOString());
    const end = Date.parse(summary.periodEnd);
    expect(end).toBeLessThanOrEqual(Date.now());
    const expected = summaryFromRows(await rawRows(accountId), start, end);
    expect(expected.totals).toMatchObject({ totalJobs: 5 });
    expect(summary).toMatchObject(expected.totals);
    expect(summary.byService).toEqual(expected.byService);
    expect(summary.byDay).toEqual(expected.byDay);
  });

  it("are written a row per minute, service, key and duration by a statement counting many jobs, which count as many", async () => {
    const dev = await signUpDeveloper(ctx.baseUrl);
    const accountId = await accountIdOf(dev);
    // Two hours ago, at 10.5 s past a minute: five jobs created, completed in 40, 40, 40, 70 and 70 ms.
    const minute = Math.floor(Date.now() / minuteMs) * minuteMs - 2 * hourMs;
    const at = (ms: number) => sql`${new Date(minute + ms).toISOString()}::timestamptz`;
    const job = (n: number, duration: number) =>
      sql`(${accountId}::uuid, ${at(10_500 + n)}, 'token-count', null::uuid, ${duration}::bigint)`;
    const jobs = sql`(values ${sql.join([job(0, 40), job(1, 40), job(2, 40), job(3, 70), job(4, 70)], sql`, `)})
      as j(account_id, at, service_id, api_key_id, duration_ms)`;
    await rowsOf(
      usageRollupSql(sql`
        select account_id, at, service_id, api_key_id, 1 as jobs, 0 as completed, 0 as failed, 3 as charged,
          0 as refunded, null::bigint as duration_ms from ${jobs}
        union all
        select account_id, at, service_id, api_key_id, 0, 1, 0, 0, 0, duration_ms from ${jobs}`),
    );
    const written = await rowsOf<{ at: Date; jobs: number; completed: number; charged: string; duration_ms: string }>(
      sql`select at, jobs, completed, charged, duration_ms from usage_deltas where account_id = ${accountId}::uuid
        order by duration_ms nulls first`,
    );
    expect(
      written.map((r) => [
        new Date(r.at).getTime(),
        r.jobs,
        r.completed,
        Number(r.charged),
        r.duration_ms && Number(r.duration_ms),
      ]),
    ).toEqual([
      [minute, 5, 0, 15, null],
      [minute, 0, 3, 0, 40],
      [minute, 0, 2, 0, 70],
    ]);
    const period = { periodStart: new Date(minute - hourMs), periodEnd: new Date() };
    const counted = { totalJobs: 5, completedJobs: 5, creditsUsed: 15, avgDurationMs: 52 };
    expect(await getUsageSummary(accountId, period)).toMatchObject(counted);
    await foldAllUsage();
    expect(await getUsageSummary(accountId, period)).toMatchObject(counted);
    const [rollup] = Object.values(await rollupsOf(accountId, "minute"));
    expect(rollup).toEqual({
      jobs: 5,
      completed: 5,
      failed: 0,
      charged: 15,
      refunded: 0,
      durationCount: 5,
      durationSumMs: 260,
      [`bucket ${durationBucket(40)}`]: 3,
      [`bucket ${durationBucket(70)}`]: 2,
    });
  });

  it("a duration's bucket holds it within 2.5 %", () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e10, noNaN: true }), (ms) => {
        expect(Math.abs(bucketValueMs(durationBucket(ms)) - ms)).toBeLessThanOrEqual(ms * 0.025);
      }),
    );
  });
});
