// The job lifecycle at the engine's surface (lib/engine): every transition of the state machine, each with
// everything it writes — status, telemetry events with gapless sequences, log lines, refund, the key's
// spend, the lease — and the webhook events it announces, for a developer with an endpoint subscribed to
// every job event and for one without (the same code path; only the rows differ).
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getDatabase } from "@/lib/db/open";
import { webhookChannel } from "@/lib/domain/webhook-events";
import { onSignal } from "@/lib/domain/signals";
import { cancelJob } from "@/lib/engine/cancel-job";
import { claimJobs } from "@/lib/engine/claims";
import { getJob } from "@/lib/engine/job-views";
import {
  completeExecution,
  failExecution,
  releaseJob,
  reportProgress,
  startExecution,
} from "@/lib/engine/node-reports";
import { registerNode } from "@/lib/network/coordinator";
import { sweepOnce } from "@/lib/network/sweeper";
import { signUpDeveloper, type Developer } from "../support/developer";
import { announced, appended, effectsOf, engineNode, gapless, rowsOf } from "../support/engine";
import { submit } from "../support/jobs";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { withDeveloper } from "../support/with-developer";

// No embedded node and no sweeper of its own to speak of: the tests make every move themselves.
const ctx = withDeveloper({
  embeddedNodes: 0,
  env: {
    ROUTING_TIMEOUT_MS: "600000",
    SWEEP_INTERVAL_MS: "3600000",
    JOB_MAX_ATTEMPTS: "4",
    RETRY_BASE_DELAY_MS: "60000",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  },
});

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  return () => receiver.close();
});

/** Makes the sweeper's due rows due now (the clock is the database's: the test moves the rows instead). */
const makeDue = (jobId: string, column: "lease_expires_at" | "next_attempt_at" | "routing_started_at") =>
  rowsOf(sql`update jobs set ${sql.raw(column)} = now() - interval '1 hour' where id = ${jobId} returning id`);

const accountOf = async (jobId: string) =>
  (await rowsOf<{ account_id: string }>(sql`select account_id from jobs where id = ${jobId}`))[0].account_id;

/**
 * The prepared statements `run` sends, by name (without the digest of their text that each prepared name
 * carries), on either driver.
 */
async function preparedDuring(run: () => Promise<unknown>): Promise<string[]> {
  const database = await getDatabase();
  const pg = (await import("pg")).default;
  const spy = database.runPrepared
    ? vi.spyOn(database as Required<typeof database>, "runPrepared")
    : vi.spyOn(pg.Pool.prototype, "query");
  try {
    await run();
    return spy.mock.calls
      .map(([config]) => (typeof config === "string" ? config : (config as { name?: string }).name))
      .filter((name): name is string => typeof name === "string" && /_[0-9a-f]{16}$/.test(name))
      .map((name) => name.replace(/_[0-9a-f]{16}$/, ""));
  } finally {
    spy.mockRestore();
  }
}

// First in the file, while no job of the tests below is left due.
describe("the sweeper's tick", () => {
  it("reads what is due in one prepared statement, and folds the deltas only when some are waiting", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey();
    await sweepOnce();
    expect(await preparedDuring(sweepOnce)).toEqual(["due_sweeps"]);

    const { jobId } = await submit(dev, key, "token-count", { text: "counted" });
    // Cancelled, so that no claim below takes it for its own test's job (cancelling writes deltas too).
    await cancelJob(await accountOf(jobId), jobId);
    expect(await preparedDuring(sweepOnce)).toEqual(["due_sweeps", "list_count_fold", "usage_fold"]);
    expect(
      await rowsOf(
        sql`select (select count(*) from usage_deltas)::int + (select count(*) from list_count_deltas)::int as waiting`,
      ),
    ).toEqual([{ waiting: 0 }]);
  });
});

describe.each([
  { developer: "with an endpoint subscribed to every job event", subscribed: true },
  { developer: "without webhook endpoints", subscribed: false },
])("the engine, for a developer $developer", ({ subscribed }) => {
  let dev: Developer;
  let key: string;
  const tag = subscribed ? "with" : "without";
  beforeAll(async () => {
    dev = await signUpDeveloper(ctx.server.baseUrl);
    key = await dev.createApiKey();
    if (!subscribed) return;
    const res = await dev.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({
        url: receiver.url(`/engine-${tag}`),
        events: ["job.status_changed", "job.completed", "job.failed"],
      }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
  });
  const submitted = async (text: string) => (await submit(dev, key, "token-count", { text })).jobId;

  it("creates a job queued and routes it (queued → routing) in one write, charging it", async () => {
    const jobId = await submitted("born");
    const effects = await effectsOf(jobId);

    expect(effects.job).toMatchObject({ status: "routing", attempt: 0, assignedNodeId: null, leased: false });
    expect(effects.events.map((e) => [e.sequence, e.type])).toEqual([
      [1, "JOB_CREATED"],
      [2, "WORKFLOW_INITIALIZED"],
      [3, "ROUTING_STARTED"],
    ]);
    expect(effects.logs.map((l) => l.message)).toEqual([expect.stringMatching(/^Job accepted for token-count/)]);
    expect(effects.ledger).toEqual([{ type: "charge", amount: -1 }]);
    expect(effects.keySpent).toBe(1);
    expect(effects.deliveries).toEqual(announced(subscribed, ["queued", 2], ["routing", 3]));
    await cancelJob(await accountOf(jobId), jobId);
  });

  it("claims (routing → assigned), starts (assigned → running), takes progress, and completes (running → completed)", async () => {
    const node = await engineNode(`steps-${tag}`);
    const jobId = await submitted("walks every step");

    let before = await effectsOf(jobId);
    expect((await claimJobs(node, 1, 0)).map((c) => c.jobId)).toEqual([jobId]);
    let after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "assigned", attempt: 1, assignedNodeId: node.id, leased: true });
    expect(appended(before, after)).toEqual({
      events: [[4, "NODE_ASSIGNED"]],
      logs: [`Assigned to node ${node.name} (test).`],
      ledger: [],
      deliveries: announced(subscribed, ["assigned", 4]),
      balance: 0,
      keySpent: 0,
    });

    before = after;
    await startExecution(node, jobId, 1);
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "running", attempt: 1, leased: true });
    expect(appended(before, after)).toMatchObject({
      events: [[5, "EXECUTION_STARTED"]],
      logs: ["Execution started (attempt 1)."],
      deliveries: announced(subscribed, ["running", 5]),
    });

    before = after;
    await reportProgress(node, jobId, 1, {
      progress: 40,
      providerRequests: [{ provider: "local", model: "counter", latencyMs: 3 }],
      logs: [{ level: "info", message: "counting" }],
    });
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "running", progress: 40 });
    expect(appended(before, after)).toMatchObject({
      events: [[6, "PROVIDER_REQUEST"]],
      logs: ["counting"],
      deliveries: [],
    });

    before = after;
    await completeExecution(node, jobId, 1, { summary: "3 tokens", output: { tokens: 3 } });
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "completed", progress: 100, leased: false, assignedNodeId: node.id });
    expect(appended(before, after)).toEqual({
      events: [
        [7, "RESULT_STORED"],
        [8, "EXECUTION_COMPLETED"],
      ],
      logs: ["Completed: 3 tokens"],
      ledger: [],
      deliveries: announced(subscribed, ["completed", 8]),
      balance: 0,
      keySpent: 0,
    });
    expect(gapless(after)).toBe(true);
    // The webhook's job (written in SQL by the change's statement) is the job the API shows (TypeScript).
    const shown = await getJob(await accountOf(jobId), jobId);
    for (const body of after.bodies.filter((b) => b.data.sequence === 8)) expect(body.data.job).toEqual(shown);
  });

  it("completes what a node's slots report at once in one write, each job with its own result, telemetry and log lines, and refuses a stale report alone", async () => {
    const node = await engineNode(`together-${tag}`);
    const jobIds = [];
    for (const text of ["one", "two", "three", "four"]) jobIds.push(await submitted(`together ${text}`));
    expect((await claimJobs(node, 4, 0, undefined, { start: true })).map((c) => c.jobId).sort()).toEqual(
      [...jobIds].sort(),
    );
    const before = await Promise.all(jobIds.map(effectsOf));

    // All four at once, as a node's slots finishing together; the third names an attempt the node never held.
    const reports = await Promise.allSettled(
      jobIds.map((jobId, i) =>
        completeExecution(
          node,
          jobId,
          i === 2 ? 2 : 1,
          { summary: `${i + 1} tokens`, output: { tokens: i + 1 } },
          i === 3
            ? {
                providerRequests: [{ provider: "local", model: "counter", latencyMs: 4 }],
                logs: [{ level: "info", message: "counted four" }],
              }
            : {},
        ),
      ),
    );
    expect(reports.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(reports[2]).toMatchObject({ reason: { code: "LEASE_LOST" } });

    const after = await Promise.all(jobIds.map(effectsOf));
    const expected = (i: number) => {
      const seq = before[i].job.eventSeq;
      const reported = i === 3 ? 1 : 0;
      return {
        events: [
          ...(reported ? [[seq + 1, "PROVIDER_REQUEST"]] : []),
          [seq + reported + 1, "RESULT_STORED"],
          [seq + reported + 2, "EXECUTION_COMPLETED"],
        ],
        logs: [...(reported ? ["counted four"] : []), `Completed: ${i + 1} tokens`],
        ledger: [],
        deliveries: announced(subscribed, ["completed", seq + reported + 2]),
        balance: 0,
        keySpent: 0,
      };
    };
    for (const i of [0, 1, 3]) {
      expect(after[i].job).toMatchObject({ status: "completed", progress: 100, leased: false });
      expect(appended(before[i], after[i])).toEqual(expected(i));
      expect(gapless(after[i])).toBe(true);
    }
    expect(after[2].job).toMatchObject({ status: "running", leased: true });
    expect(appended(before[2], after[2])).toEqual({
      events: [],
      logs: [],
      ledger: [],
      deliveries: [],
      balance: 0,
      keySpent: 0,
    });
    const results = await rowsOf<{ id: string; result: { summary: string }; completed_at: Date }>(
      sql`select id, result, completed_at from jobs where id in (${sql.join(jobIds, sql`, `)}) and status = 'completed'`,
    );
    expect(Object.fromEntries(results.map((r) => [r.id, r.result.summary]))).toEqual({
      [jobIds[0]]: "1 tokens",
      [jobIds[1]]: "2 tokens",
      [jobIds[3]]: "4 tokens",
    });
    // The first report went at once; the others, waiting behind it, in ONE statement (one transaction's now()).
    expect(new Set(results.map((r) => String(r.completed_at))).size).toBe(2);
  });

  it("claims and starts in one change (routing → assigned → running), then fails for good (running → failed), refunded once", async () => {
    const node = await engineNode(`at-once-${tag}`);
    const jobId = await submitted("fails for good");

    let before = await effectsOf(jobId);
    await claimJobs(node, 1, 0, undefined, { start: true });
    let after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "running", attempt: 1, assignedNodeId: node.id, leased: true });
    expect(appended(before, after)).toMatchObject({
      events: [
        [4, "NODE_ASSIGNED"],
        [5, "EXECUTION_STARTED"],
      ],
      deliveries: announced(subscribed, ["assigned", 4], ["running", 5]),
    });
    // The assigned event shows the job as it was then: assigned, with its node.
    for (const body of after.bodies.filter((b) => b.data.sequence === 4))
      expect(body.data.job).toMatchObject({ status: "assigned", assignedNode: { nodeId: node.id, name: node.name } });

    before = after;
    await failExecution(node, jobId, 1, { code: "BAD_INPUT", message: "cannot count", retryable: false });
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "failed", leased: false });
    expect(appended(before, after)).toEqual({
      events: [
        [6, "EXECUTION_FAILED"],
        [7, "JOB_FAILED"],
      ],
      logs: ["Attempt 1 failed: BAD_INPUT: cannot count"],
      ledger: [{ type: "refund", amount: 1 }],
      deliveries: announced(subscribed, ["failed", 7]),
      balance: 1,
      keySpent: -1,
    });
    expect(gapless(after)).toBe(true);
  });

  it("retries (running → retrying → routing), releases (assigned → routing), loses a node (running → routing), then fails on the last attempt (running → failed)", async () => {
    const node = await engineNode(`retries-${tag}`);
    const jobId = await submitted("tries four times");

    await claimJobs(node, 1, 0, undefined, { start: true });
    let before = await effectsOf(jobId);
    await failExecution(node, jobId, 1, { code: "UPSTREAM", message: "try again", retryable: true });
    let after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "retrying", leased: false, retryDue: true });
    expect(appended(before, after)).toMatchObject({
      events: [
        [6, "EXECUTION_FAILED"],
        [7, "RETRY_SCHEDULED"],
      ],
      ledger: [],
      deliveries: announced(subscribed, ["retrying", 7]),
    });

    before = after;
    await makeDue(jobId, "next_attempt_at");
    // The sweeper's tick: its probe finds the job due, then the sweep acts on it.
    await sweepOnce();
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "routing", retryDue: false });
    expect(appended(before, after)).toMatchObject({
      events: [[8, "ROUTING_STARTED"]],
      deliveries: announced(subscribed, ["routing", 8]),
    });

    await claimJobs(node, 1, 0);
    before = await effectsOf(jobId);
    expect(before.job).toMatchObject({ status: "assigned", attempt: 2 });
    await releaseJob(node, jobId, 2, "shutting down");
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "routing", leased: false });
    expect(appended(before, after)).toMatchObject({
      events: [[10, "ROUTING_STARTED"]],
      logs: ["Released by the node (shutting down)."],
      deliveries: announced(subscribed, ["routing", 10]),
    });

    await claimJobs(node, 1, 0, undefined, { start: true });
    before = await effectsOf(jobId);
    await makeDue(jobId, "lease_expires_at");
    // The sweeper's tick: its probe finds the job due, then the sweep acts on it.
    await sweepOnce();
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "routing", attempt: 3, leased: false });
    expect(appended(before, after)).toMatchObject({
      events: [
        [13, "NODE_LOST"],
        [14, "ROUTING_STARTED"],
      ],
      logs: ["Node lost (lease expired) during attempt 3."],
      ledger: [],
      deliveries: announced(subscribed, ["routing", 14]),
    });

    // The last attempt's node restarts: what it held is lost, and no attempt is left.
    await claimJobs(node, 1, 0, undefined, { start: true });
    before = await effectsOf(jobId);
    await registerNode(node, { name: node.name, region: "test", serviceIds: ["token-count"], concurrency: 4 });
    after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "failed", attempt: 4, leased: false });
    expect(appended(before, after)).toEqual({
      events: [
        [17, "NODE_LOST"],
        [18, "JOB_FAILED"],
      ],
      logs: ["Node lost (node restarted) during attempt 4."],
      ledger: [{ type: "refund", amount: 1 }],
      deliveries: announced(subscribed, ["failed", 18]),
      balance: 1,
      keySpent: -1,
    });
    expect(gapless(after)).toBe(true);
  });

  it("fails a job no node takes in time (routing → failed) and refunds it", async () => {
    const jobId = await submitted("never routed");
    const before = await effectsOf(jobId);
    await makeDue(jobId, "routing_started_at");
    // The sweeper's tick: its probe finds the job due, then the sweep acts on it.
    await sweepOnce();
    const after = await effectsOf(jobId);
    expect(after.job.status).toBe("failed");
    expect(appended(before, after)).toEqual({
      events: [
        [4, "ROUTING_FAILED"],
        [5, "JOB_FAILED"],
      ],
      logs: [expect.stringMatching(/^No eligible execution node took the job/)],
      ledger: [{ type: "refund", amount: 1 }],
      deliveries: announced(subscribed, ["failed", 5]),
      balance: 1,
      keySpent: -1,
    });
  });

  it("cancels a retrying job (retrying → failed) for its owner, refunded", async () => {
    const node = await engineNode(`cancel-${tag}`);
    const jobId = await submitted("cancelled while waiting");
    await claimJobs(node, 1, 0, undefined, { start: true });
    await failExecution(node, jobId, 1, { code: "UPSTREAM", message: "later", retryable: true });

    const before = await effectsOf(jobId);
    await cancelJob(await accountOf(jobId), jobId);
    const after = await effectsOf(jobId);
    expect(after.job).toMatchObject({ status: "failed", leased: false });
    expect(appended(before, after)).toEqual({
      events: [[8, "JOB_CANCELLED"]],
      logs: ["Cancelled by the owner while retrying; credits refunded."],
      ledger: [{ type: "refund", amount: 1 }],
      deliveries: announced(subscribed, ["failed", 8]),
      balance: 1,
      keySpent: -1,
    });
  });

  it.runIf(subscribed)("wakes the webhook dispatcher (en_webhooks) when a change writes deliveries", async () => {
    const node = await engineNode(`wakes-${tag}`);
    const jobId = await submitted("announced");
    let woken = 0;
    const stop = await onSignal(webhookChannel, () => woken++);
    try {
      await claimJobs(node, 1, 0);
      await expect.poll(() => woken, { timeout: 5_000 }).toBeGreaterThan(0);
    } finally {
      await stop();
    }
    await cancelJob(await accountOf(jobId), jobId);
  });
});

describe("a sweep after a burst", () => {
  it("folds every delta written, kept totals' and usage's, even more than one fold's batch takes", async () => {
    // 12,000 of each (a fold takes 5,000): one sweep folds them all, so a read's cost stays a sweep's work.
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const [{ id: scope }] = await rowsOf<{ id: string }>(
      sql`select id from accounts where lower(wallet_address) = lower(${dev.address})`,
    );
    const burst = 12_000;
    await rowsOf(sql`insert into list_count_deltas (scope_id, list, n)
      select ${scope}::uuid, 'jobs', 1 from generate_series(1, ${burst}::int)`);
    await rowsOf(sql`insert into usage_deltas
        (account_id, at, service_id, api_key_id, jobs, completed, failed, charged, refunded, duration_ms)
      select ${scope}::uuid, now(), 'burst', '00000000-0000-0000-0000-000000000000', 1, 1, 0, 2, 0, 10
      from generate_series(1, ${burst}::int)`);

    await sweepOnce();

    const [left] = await rowsOf<{ counts: number; usage: number }>(sql`select
      (select count(*)::int from list_count_deltas where scope_id = ${scope}::uuid) as counts,
      (select count(*)::int from usage_deltas where account_id = ${scope}::uuid) as usage`);
    expect(left).toEqual({ counts: 0, usage: 0 });
    const [kept] = await rowsOf<{ count: string }>(
      sql`select count from list_counts where scope_id = ${scope}::uuid and list = 'jobs'`,
    );
    expect(Number(kept.count)).toBe(burst);
  });
});
