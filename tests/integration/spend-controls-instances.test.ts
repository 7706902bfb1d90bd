// A key's credit limit holds across server instances sharing one PostgreSQL (CONTRACT §11): submissions
// through one key arriving at two instances at once never spend past it, on either submission path, and
// refunds racing with submissions neither deadlock nor lose count.
import { afterAll, describe, expect, it } from "vitest";
import { createKey, readKey } from "../support/api-keys";
import { signUpDeveloper, type Developer } from "../support/developer";
import { execute, type JobView } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";

const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
});

/** `dev` as seen through the instance at `baseUrl` (the same session and keys). */
const via = (dev: Developer, baseUrl: string): Developer => ({
  ...dev,
  withKey: (key, path, init = {}) =>
    fetch(`${baseUrl}${path}`, { ...init, headers: { "x-api-key": key, "content-type": "application/json" } }),
});

describe.skipIf(!usePostgres())("a key's credit limit with two server instances on one PostgreSQL", () => {
  let urls: string[];
  const instances = async () => {
    if (urls) return urls;
    const database = await createScratchDatabase();
    cleanups.push(database.drop);
    const env = {
      DATABASE_URL: database.url,
      EMBEDDED_NODES: "0",
      STARTER_CREDITS: "1000",
      RATE_LIMIT_PER_MINUTE: "0",
      ACCOUNT_RATE_PER_MINUTE: "0",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      ROUTING_TIMEOUT_MS: "600000",
    };
    const started = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    children.push(...started);
    urls = started.map((s) => s.ready.baseUrl as string);
    return urls;
  };

  it.each([
    { path: "one statement", subscribe: false },
    { path: "transaction with the webhook outbox", subscribe: true },
  ])("accepts exactly the limit of 100 submissions spread over both instances ($path)", async ({ subscribe }) => {
    const [a, b] = await instances();
    const dev = await signUpDeveloper(a);
    if (subscribe) {
      const res = await dev.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/x", events: ["job.status_changed"] }),
      });
      expect(res.status).toBe(201);
    }
    const { key, keyId } = await createKey(dev, { creditLimit: 25, creditLimitReset: "daily" });
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        execute(via(dev, i % 2 ? a : b), key, "token-count", { text: `instance job ${i}` }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(25);
    expect(statuses.filter((s) => s === 402)).toHaveLength(75);
    expect(await readKey(dev, keyId)).toMatchObject({ creditLimitRemaining: 0, usage: { daily: 25, total: 25 } });
    const balance = await (await dev.withKey(key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(1000 - 25);
  });

  it("keeps count when refunds race with submissions through the same key", async () => {
    const [a, b] = await instances();
    const dev = await signUpDeveloper(a);
    const { key, keyId } = await createKey(dev, { creditLimit: 30 });
    const first = await Promise.all(
      Array.from({ length: 10 }, (_, i) => execute(via(dev, a), key, "token-count", { text: `first ${i}` })),
    );
    const jobs = (await Promise.all(first.map((r) => r.json()))) as JobView[];

    const [submissions, cancels] = await Promise.all([
      Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          execute(via(dev, i % 2 ? a : b), key, "token-count", { text: `racing ${i}` }),
        ),
      ),
      Promise.all(
        jobs.map((job, i) =>
          via(dev, i % 2 ? b : a).withKey(key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" }),
        ),
      ),
    ]);
    expect(cancels.map((r) => r.status)).toEqual(jobs.map(() => 200));
    const statuses = submissions.map((r) => r.status);
    expect(statuses.filter((s) => s !== 202 && s !== 402)).toEqual([]);
    const accepted = statuses.filter((s) => s === 202).length;
    // 20 fit besides the first 10; each refund may free one more before the submissions end.
    expect(accepted).toBeGreaterThanOrEqual(20);
    expect(accepted).toBeLessThanOrEqual(30);
    expect(await readKey(dev, keyId)).toMatchObject({
      creditLimitRemaining: 30 - accepted,
      usage: { total: accepted },
    });
  });
});
