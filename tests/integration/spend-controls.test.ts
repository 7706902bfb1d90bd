// Per-key credit limits (CONTRACT §11): set, changed and removed; enforced with the charge, at its edge and
// under concurrency, on both submission paths; given back by refunds; reset at UTC boundaries (the spend
// clock moved, never waited for); kept by rotation; validated; another developer's key not found.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ExecutionClient, KeyCreditLimitError } from "@/lib/client/src/index";
import { setSpendClock } from "@/lib/domain/spend-controls";
import { createKey, patchKey, readKey } from "../support/api-keys";
import { signUpDeveloper, type Developer } from "../support/developer";
import { expectError } from "../support/expect-error";
import { execute, submit, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({
  embeddedNodes: 0,
  env: {
    STARTER_CREDITS: "1000",
    RATE_LIMIT_PER_MINUTE: "0",
    ACCOUNT_RATE_PER_MINUTE: "0",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  },
});

afterEach(() => setSpendClock(null));

/** Moves the spend clock to an instant (the server runs in this process). */
const at = (iso: string) => setSpendClock(() => new Date(iso));

const tokenCount = (dev: Developer, key: string, n = 0) => execute(dev, key, "token-count", { text: `spend ${n}` });
const balanceOf = async (dev: Developer, key: string) =>
  ((await (await dev.withKey(key, "/api/credits/balance")).json()) as { balance: number }).balance;
const cancel = (dev: Developer, key: string, jobId: string) =>
  dev.withKey(key, `/api/developers/jobs/${jobId}/cancel`, { method: "POST" });

/**
 * The two ways a submission is written: one statement (no webhook endpoint), or a transaction of the
 * general writers (an endpoint subscribed to job events, whose outbox rows are written with the job).
 */
const paths = [
  { path: "one statement", subscribe: false },
  { path: "transaction with the webhook outbox", subscribe: true },
];

describe.each(paths)("a key's credit limit, submitted through the $path", ({ subscribe }) => {
  let dev: Developer;
  beforeAll(async () => {
    dev = await signUpDeveloper(ctx.server.baseUrl);
    if (subscribe) {
      const res = await dev.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/never-answers", events: ["job.status_changed"] }),
      });
      expect(res.status).toBe(201);
    }
  });

  it("allows spending exactly up to the limit, then answers 402 KEY_CREDIT_LIMIT and creates nothing", async () => {
    const created = await createKey(dev, { creditLimit: 3, creditLimitReset: "daily" });
    expect(created).toMatchObject({
      creditLimit: 3,
      creditLimitReset: "daily",
      creditLimitRemaining: 3,
      usage: { daily: 0, weekly: 0, monthly: 0, total: 0 },
    });

    // text-summarize costs 2, token-count 1: 2 + 1 is exactly the limit.
    expect(
      (await execute(dev, created.key, "text-summarize", { text: "One sentence here. Another one there." })).status,
    ).toBe(202);
    expect((await readKey(dev, created.keyId)).creditLimitRemaining).toBe(1);
    expect((await tokenCount(dev, created.key)).status).toBe(202);
    const balance = await balanceOf(dev, created.key);
    const jobsBefore = (await (await dev.withKey(created.key, "/api/developers/jobs")).json()).pagination.total;

    const refused = await expectError(await tokenCount(dev, created.key), 402, "KEY_CREDIT_LIMIT");
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(refused.details).toEqual({
      creditLimit: 3,
      creditLimitRemaining: 0,
      creditLimitReset: "daily",
      resetsAt: midnight.toISOString(),
    });

    expect(await balanceOf(dev, created.key)).toBe(balance);
    expect((await (await dev.withKey(created.key, "/api/developers/jobs")).json()).pagination.total).toBe(jobsBefore);
    expect(await readKey(dev, created.keyId)).toMatchObject({
      creditLimitRemaining: 0,
      usage: { daily: 3, weekly: 3, monthly: 3, total: 3 },
    });
  });

  it("reaches the client library as a KeyCreditLimitError carrying the limit's details", async () => {
    const { key } = await createKey(dev, { creditLimit: 1, creditLimitReset: "weekly" });
    const client = new ExecutionClient({ apiKey: key, baseUrl: ctx.server.baseUrl });
    await client.execute("token-count", { text: "fits" });
    const error = await client.execute("token-count", { text: "does not" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyCreditLimitError);
    expect(error).toMatchObject({
      status: 402,
      creditLimit: 1,
      creditLimitRemaining: 0,
      creditLimitReset: "weekly",
      resetsAt: expect.stringMatching(/T00:00:00\.000Z$/),
    });
    const { resetsAt } = error as KeyCreditLimitError;
    expect(new Date(resetsAt ?? "").getUTCDay()).toBe(1); // a Monday
  });

  it("refuses a job that costs more than what remains, while a cheaper one still fits", async () => {
    const { key } = await createKey(dev, { creditLimit: 2 });
    expect((await tokenCount(dev, key)).status).toBe(202);
    const refused = await expectError(
      await execute(dev, key, "text-summarize", { text: "Costs two. Only one is left." }),
      402,
      "KEY_CREDIT_LIMIT",
    );
    // No reset: the limit is for the key's whole life.
    expect(refused.details).toEqual({
      creditLimit: 2,
      creditLimitRemaining: 1,
      creditLimitReset: null,
      resetsAt: null,
    });
    expect((await tokenCount(dev, key)).status).toBe(202);
  });

  it("never spends past the limit when many more submissions than it allows arrive at once", async () => {
    const { key, keyId } = await createKey(dev, { creditLimit: 10, creditLimitReset: "monthly" });
    const balance = await balanceOf(dev, key);
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => tokenCount(dev, key, i)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    const codes = await Promise.all(
      responses.filter((r) => r.status === 402).map(async (r) => (await r.json()).error.code),
    );
    expect(new Set(codes)).toEqual(new Set(["KEY_CREDIT_LIMIT"]));
    expect(await balanceOf(dev, key)).toBe(balance - 10);
    expect(await readKey(dev, keyId)).toMatchObject({ creditLimitRemaining: 0, usage: { monthly: 10, total: 10 } });
  });

  it("gives the limit back when a job is refunded", async () => {
    const { key, keyId } = await createKey(dev, { creditLimit: 2, creditLimitReset: "weekly" });
    const first = (await (await tokenCount(dev, key, 1)).json()) as JobView;
    expect((await tokenCount(dev, key, 2)).status).toBe(202);
    await expectError(await tokenCount(dev, key, 3), 402, "KEY_CREDIT_LIMIT");

    expect((await cancel(dev, key, first.jobId)).status).toBe(200);
    expect(await readKey(dev, keyId)).toMatchObject({
      creditLimitRemaining: 1,
      usage: { daily: 1, weekly: 1, monthly: 1, total: 1 },
    });
    expect((await tokenCount(dev, key, 4)).status).toBe(202);
  });
});

describe("the spend clock", () => {
  it("keeps milliseconds as a millisecond column stores them: rounded, not cut", async () => {
    const { sql } = await import("drizzle-orm");
    const { db } = await import("@/lib/domain/database");
    const { spendClockSql } = await import("@/lib/domain/spend-controls");
    const instant = (at: string) => sql`${at}::text`;
    const read = async (at: string) => {
      const result = (await (
        await db()
      ).execute(
        sql`select to_char(${spendClockSql(instant(at))} at time zone 'UTC', 'HH24:MI:SS.MS') as at`,
      )) as unknown as { rows: { at: string }[] };
      return result.rows[0].at;
    };
    // A job's created_at is this instant, and every later time of the job (started, completed) is now() as its
    // timestamptz(3) column rounds it: cut, the created time was half a millisecond early on average.
    expect(await read("2030-06-04T10:00:00.0006Z")).toBe("10:00:00.001");
    expect(await read("2030-06-04T10:00:00.0004Z")).toBe("10:00:00.000");
    expect(await read("2030-06-04T23:59:59.9996Z")).toBe("00:00:00.000");
  });
});

describe("resets at 00:00 UTC (the spend clock moved)", () => {
  const cases = [
    // Tuesday's last millisecond, then Wednesday.
    {
      reset: "daily",
      spendAt: "2030-06-04T00:00:00.000Z",
      lastMoment: "2030-06-04T23:59:59.999Z",
      next: "2030-06-05T00:00:00.000Z",
    },
    // From Monday's first millisecond to Sunday's last: one week.
    {
      reset: "weekly",
      spendAt: "2030-06-03T00:00:00.000Z",
      lastMoment: "2030-06-09T23:59:59.999Z",
      next: "2030-06-10T00:00:00.000Z",
    },
    // 31 May is a Friday and 1 June a Saturday: the month resets within a week.
    {
      reset: "monthly",
      spendAt: "2030-05-01T00:00:00.000Z",
      lastMoment: "2030-05-31T23:59:59.999Z",
      next: "2030-06-01T00:00:00.000Z",
    },
  ] as const;

  it.each(cases)(
    "a $reset limit is spent until $next, then whole again",
    async ({ reset, spendAt, lastMoment, next }) => {
      const { key, keyId } = await createKey(ctx.dev, { creditLimit: 1, creditLimitReset: reset });
      at(spendAt);
      expect((await tokenCount(ctx.dev, key)).status).toBe(202);

      at(lastMoment);
      const refused = await expectError(await tokenCount(ctx.dev, key), 402, "KEY_CREDIT_LIMIT");
      expect(refused.details).toMatchObject({ creditLimitRemaining: 0, creditLimitReset: reset, resetsAt: next });
      expect(await readKey(ctx.dev, keyId)).toMatchObject({ creditLimitRemaining: 0, usage: { total: 1 } });

      at(next);
      expect(await readKey(ctx.dev, keyId)).toMatchObject({ creditLimitRemaining: 1, usage: { [reset]: 0, total: 1 } });
      expect((await tokenCount(ctx.dev, key)).status).toBe(202);
      expect(await readKey(ctx.dev, keyId)).toMatchObject({ creditLimitRemaining: 0, usage: { [reset]: 1, total: 2 } });
    },
  );

  it("counts usage in the current UTC day, week (from Monday) and month", async () => {
    const { key, keyId } = await createKey(ctx.dev);
    at("2030-06-30T12:00:00.000Z"); // Sunday 30 June
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);
    at("2030-07-01T08:00:00.000Z"); // Monday 1 July: a new day, week and month
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);
    expect(await readKey(ctx.dev, keyId)).toMatchObject({
      creditLimit: null,
      creditLimitRemaining: null,
      usage: { daily: 2, weekly: 2, monthly: 2, total: 3 },
    });
    at("2030-07-02T08:00:00.000Z");
    expect((await readKey(ctx.dev, keyId)).usage).toEqual({ daily: 0, weekly: 2, monthly: 2, total: 3 });
  });

  it("does not give a new day's limit back for the refund of an earlier day's charge", async () => {
    const { key, keyId } = await createKey(ctx.dev, { creditLimit: 1, creditLimitReset: "daily" });
    at("2030-06-04T10:00:00.000Z");
    const yesterdays = (await (await tokenCount(ctx.dev, key, 1)).json()) as JobView;
    at("2030-06-05T10:00:00.000Z");
    expect((await tokenCount(ctx.dev, key, 2)).status).toBe(202);

    expect((await cancel(ctx.dev, key, yesterdays.jobId)).status).toBe(200);
    expect(await readKey(ctx.dev, keyId)).toMatchObject({ creditLimitRemaining: 0, usage: { daily: 1, total: 1 } });
    await expectError(await tokenCount(ctx.dev, key, 3), 402, "KEY_CREDIT_LIMIT");
  });
});

describe("changing a key's limit", () => {
  it("sets, changes and removes the limit with PATCH, keeping the usage", async () => {
    const { key, keyId } = await createKey(ctx.dev);
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);

    const set = await patchKey(ctx.dev, keyId, { creditLimit: 1, creditLimitReset: "weekly" });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      keyId,
      creditLimit: 1,
      creditLimitReset: "weekly",
      creditLimitRemaining: 0,
      usage: { weekly: 1, total: 1 },
    });
    await expectError(await tokenCount(ctx.dev, key), 402, "KEY_CREDIT_LIMIT");

    const raised = await (await patchKey(ctx.dev, keyId, { creditLimit: 3 })).json();
    expect(raised).toMatchObject({ creditLimit: 3, creditLimitReset: "weekly", creditLimitRemaining: 2 });
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);

    const removed = await (await patchKey(ctx.dev, keyId, { creditLimit: null })).json();
    expect(removed).toMatchObject({
      creditLimit: null,
      creditLimitReset: null,
      creditLimitRemaining: null,
      usage: { total: 2 },
    });
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);

    const renamed = await (await patchKey(ctx.dev, keyId, { name: "  CI runner  " })).json();
    expect(renamed).toMatchObject({ name: "CI runner", creditLimit: null, usage: { total: 3 } });
  });

  it("keeps the limit and the usage through rotation: the new secret spends the same limit", async () => {
    const { key, keyId } = await createKey(ctx.dev, { creditLimit: 3, creditLimitReset: "monthly" });
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);
    expect((await tokenCount(ctx.dev, key)).status).toBe(202);

    const res = await ctx.dev.session(`/api/developers/keys/${keyId}/rotate`, { method: "POST" });
    expect(res.status).toBe(200);
    const rotated = await res.json();
    expect(rotated).toMatchObject({
      keyId,
      creditLimit: 3,
      creditLimitReset: "monthly",
      creditLimitRemaining: 1,
      usage: { monthly: 2, total: 2 },
    });

    expect((await tokenCount(ctx.dev, rotated.key)).status).toBe(202);
    await expectError(await tokenCount(ctx.dev, rotated.key), 402, "KEY_CREDIT_LIMIT");
  });

  const invalid = [
    { creditLimit: 0 },
    { creditLimit: -5 },
    { creditLimit: 1.5 },
    { creditLimit: "10" },
    { creditLimit: 2 ** 53 },
    { creditLimit: 10, creditLimitReset: "hourly" },
    { creditLimit: null, creditLimitReset: "daily" },
    { creditLimit: 10, spent: 0 },
  ];

  it.each(invalid)("refuses %j with 400 INVALID_REQUEST, on create and on PATCH", async (body) => {
    await expectError(
      await ctx.dev.session("/api/developers/keys", {
        method: "POST",
        body: JSON.stringify({ name: "bad", scopes: ["jobs:read"], ...body }),
      }),
      400,
      "INVALID_REQUEST",
    );
    const { keyId } = await createKey(ctx.dev, { creditLimit: 7 });
    await expectError(await patchKey(ctx.dev, keyId, body), 400, "INVALID_REQUEST");
    expect((await readKey(ctx.dev, keyId)).creditLimit).toBe(7);
  });

  it("answers 404 KEY_NOT_FOUND for another developer's key, exactly as for one that does not exist", async () => {
    const other = await signUpDeveloper(ctx.server.baseUrl);
    const { keyId } = await createKey(other, { creditLimit: 5 });
    await expectError(await patchKey(ctx.dev, keyId, { creditLimit: null }), 404, "KEY_NOT_FOUND");
    await expectError(
      await patchKey(ctx.dev, "00000000-0000-4000-8000-000000000000", { creditLimit: 1 }),
      404,
      "KEY_NOT_FOUND",
    );
    await expectError(await patchKey(ctx.dev, "not-a-key-id", { creditLimit: 1 }), 404, "KEY_NOT_FOUND");
    expect((await readKey(other, keyId)).creditLimit).toBe(5);
  });

  it("needs the wallet session and the app's Origin: foreign or missing Origin 403, an API key 401", async () => {
    const { keyId } = await createKey(ctx.dev, { creditLimit: 5 });
    await expectError(
      await patchKey(ctx.dev, keyId, { creditLimit: 1 }, { headers: { origin: "https://evil.example" } }),
      403,
      "FORBIDDEN_ORIGIN",
    );
    const withoutOrigin = await fetch(`${ctx.server.baseUrl}/api/developers/keys/${keyId}`, {
      method: "PATCH",
      headers: { cookie: ctx.dev.cookie, "content-type": "application/json" },
      body: JSON.stringify({ creditLimit: 1 }),
    });
    await expectError(withoutOrigin, 403, "FORBIDDEN_ORIGIN");
    const withApiKey = await ctx.dev.withKey(ctx.key, `/api/developers/keys/${keyId}`, {
      method: "PATCH",
      body: JSON.stringify({ creditLimit: 1 }),
      headers: { origin: ctx.server.baseUrl },
    });
    await expectError(withApiKey, 401, "UNAUTHENTICATED");
    expect((await readKey(ctx.dev, keyId)).creditLimit).toBe(5);
  });
});

describe("usage by key", () => {
  it("splits the credits used in the period by the key that submitted them", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const ci = await createKey(dev, { name: "CI" });
    const staging = await createKey(dev, { name: "Staging" });
    await submit(dev, ci.key, "text-summarize", { text: "Two credits. From the CI key." });
    const refunded = await submit(dev, staging.key, "text-summarize", { text: "Two credits. Refunded soon." });
    await submit(dev, staging.key, "token-count", { text: "one credit" });
    expect((await cancel(dev, staging.key, refunded.jobId)).status).toBe(200);

    const metrics = await (await dev.session("/api/developers/metrics")).json();
    expect(metrics.byKey).toEqual([
      { keyId: ci.keyId, name: "CI", prefix: ci.prefix, jobs: 1, creditsUsed: 2 },
      { keyId: staging.keyId, name: "Staging", prefix: staging.prefix, jobs: 2, creditsUsed: 1 },
    ]);
  });
});
