// One developer's burst of submissions waits in the server's lane for that developer, not inside PostgreSQL:
// each charge locks the developer's balance row, and a burst that waited in the database would hold every
// pooled connection of the instance, so another developer's request would wait for the first one's burst.
// What waits is then written together, each job exactly as if it had been written alone.
import pg from "pg";
import { formatCredits } from "@/lib/contract/credit-words";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, execute, getJob, telemetry, type JobView } from "../support/jobs";
import { usePostgres } from "../support/postgres";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({
  embeddedNodes: 0,
  env: { RATE_LIMIT_PER_MINUTE: "0", ACCOUNT_RATE_PER_MINUTE: "0", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" },
});

/** More than the instance's pool (10 connections, lib/db/postgres.ts). */
const burst = 12;

// The pool and the row lock are PostgreSQL's; PGlite runs one statement at a time anyway.
describe.skipIf(!usePostgres())("one developer's burst of submissions on PostgreSQL", () => {
  let other: Developer;
  let otherKey: string;
  let locker: pg.Client;

  beforeAll(async () => {
    other = await signUpDeveloper(ctx.server.baseUrl);
    otherKey = await other.createApiKey();
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
  });
  afterAll(() => locker.end());

  /** Backends of this database waiting for a lock, read afresh (a transaction otherwise keeps its first reading). */
  const lockWaiters = async () => {
    await locker.query("select pg_stat_clear_snapshot()");
    const { rows } = await locker.query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    return Number(rows[0].n);
  };

  /**
   * Sends `submit` while the developer's balance row is held by another transaction (as a long charge or a
   * top-up would hold it), until the first has reached the lock and the rest has had time to arrive behind it;
   * `meanwhile` runs then, and the row is released after it.
   */
  async function withBalanceHeld(
    dev: Developer,
    submit: () => Promise<Response>[],
    meanwhile: () => Promise<void> = async () => undefined,
  ): Promise<Response[]> {
    await locker.query("begin");
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await locker.query("commit");
    };
    try {
      await locker.query("select 1 from accounts where wallet_address = $1 for update", [dev.address]);
      const submissions = submit();
      await eventually(lockWaiters, (n) => n >= 1, 10_000);
      await new Promise((r) => setTimeout(r, 1_000));
      await meanwhile();
      await release();
      return await Promise.all(submissions);
    } finally {
      await release();
    }
  }

  it("waits in the server, and another developer is answered meanwhile", async () => {
    const responses = await withBalanceHeld(
      ctx.dev,
      () => Array.from({ length: burst }, (_, i) => execute(ctx.dev, ctx.key, "token-count", { text: `burst ${i}` })),
      async () => {
        // One of them waits in the database; the pool would otherwise be full of them (9 of its 10 connections).
        expect(await lockWaiters()).toBe(1);

        // Another developer is not kept waiting by the first one's burst.
        const answer = await Promise.race([
          execute(other, otherKey, "token-count", { text: "another developer" }).then((r) => r.status),
          new Promise<string>((r) => setTimeout(() => r("still waiting after 5 s"), 5_000)),
        ]);
        expect(answer).toBe(202);
      },
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: burst }, () => 202));
  });

  it("writes what waited together, each job charged, logged and recorded as if alone", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey();
    // Two prices, so that each ledger entry's balance is seen to follow its own job's cost.
    const services = ["token-count", "text-summarize"] as const;
    const texts = Array.from({ length: 8 }, (_, i) => `Job number ${i} of the burst. It has two sentences.`);
    const responses = await withBalanceHeld(dev, () =>
      texts.map((text, i) => execute(dev, key, services[i % 2], { text })),
    );
    expect(responses.map((r) => r.status)).toEqual(texts.map(() => 202));
    const created = (await Promise.all(responses.map((r) => r.json()))) as JobView[];

    // The first to arrive went alone, and waited for the row; those that arrived meanwhile went together (all
    // 7 in one write unless the machine is slow enough for some to arrive after the first write ended). The
    // jobs of one write share their time of creation.
    const jobsByTime = new Map<unknown, number>();
    for (const job of created) jobsByTime.set(job.createdAt, (jobsByTime.get(job.createdAt) ?? 0) + 1);
    const writes = [...jobsByTime.values()];
    expect(writes.reduce((a, b) => a + b)).toBe(8);
    expect(Math.max(...writes)).toBeGreaterThan(1);

    // Every charge is in the ledger, each with the balance after it: 100, then down by each job's cost.
    const history = (await (await dev.withKey(key, "/api/credits/history?limit=20")).json()) as {
      data: { type: string; amount: number; balanceAfter: number; jobId: string | null }[];
    };
    const charges = history.data.filter((e) => e.type === "charge").reverse();
    expect(charges.map((e) => e.jobId).sort()).toEqual(created.map((job) => job.jobId).sort());
    let balance = 100;
    for (const entry of charges) {
      const job = created.find((j) => j.jobId === entry.jobId);
      expect(entry.amount).toBe(-(job?.creditCost ?? Number.NaN));
      balance += entry.amount;
      expect(entry.balanceAfter).toBe(balance);
    }
    const balanceNow = (await (await dev.withKey(key, "/api/credits/balance")).json()) as { balance: number };
    expect(balanceNow.balance).toBe(balance);

    // Each job has its own events, numbered from 1, and its own log line.
    for (const job of created) {
      const events = await telemetry(dev, key, job.jobId);
      expect(events.slice(0, 3).map((e) => [e.sequence, e.type])).toEqual([
        [1, "JOB_CREATED"],
        [2, "WORKFLOW_INITIALIZED"],
        [3, "ROUTING_STARTED"],
      ]);
      expect(events[0].data).toMatchObject({ serviceId: job.serviceId, creditCost: job.creditCost });
      expect(events[1].data).toMatchObject({ workflowRunId: job.workflowRunId });
      const logs = (await (await dev.withKey(key, `/api/developers/jobs/${job.jobId}/logs`)).json()) as {
        message: string;
      }[];
      expect(logs[0].message).toBe(`Job accepted for ${job.serviceId}; ${formatCredits(job.creditCost)} charged.`);
      expect((await getJob(dev, key, job.jobId)).status).toBe("routing");
    }
  });

  it("alerts once for the low balance, saying the balance after the charge that crossed it, not after the write", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey();
    const endpoint = await dev.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "http://127.0.0.1:9/alerts", events: ["credits.low"] }),
    });
    expect(endpoint.status).toBe(201);
    const profile = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ lowBalanceThreshold: 96 }),
    });
    expect(profile.status).toBe(200);
    // 100 credits, 8 jobs of 1: the first alone (99), the others together down to 92. The fifth takes the
    // balance from 96 to 95, below the threshold.
    const responses = await withBalanceHeld(dev, () =>
      Array.from({ length: 8 }, (_, i) => execute(dev, key, "token-count", { text: `alert ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 202));
    const { rows } = await locker.query<{ body: string }>(
      `select d.body from webhook_deliveries d join accounts a on a.id = d.account_id
       where a.wallet_address = $1 and d.event_type = 'credits.low'`,
      [dev.address],
    );
    expect(rows.map((r) => JSON.parse(r.body).data)).toEqual([{ balance: 95, threshold: 96 }]);
  });

  it("writes one at a time what the key's limit does not allow together: those that fit, then 402s", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey(undefined, { creditLimit: 5 });
    const responses = await withBalanceHeld(dev, () =>
      Array.from({ length: 8 }, (_, i) => execute(dev, key, "token-count", { text: `limited ${i}` })),
    );
    // The first alone; the 7 others (7 credits) are more than the 4 left, so each is written alone, in the
    // order they arrived: 4 fit.
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(3);
    for (const refused of responses.filter((r) => r.status === 402)) {
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("KEY_CREDIT_LIMIT");
    }
    const balance = (await (await dev.withKey(key, "/api/credits/balance")).json()) as { balance: number };
    expect(balance.balance).toBe(95);
  });
});
