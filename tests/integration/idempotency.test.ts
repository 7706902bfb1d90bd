import { describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { execute } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const balance = async () => (await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json()).balance as number;
const jobCount = async () =>
  (await (await ctx.dev.withKey(ctx.key, "/api/developers/jobs?limit=1")).json()).pagination.total as number;

const ctx = withDeveloper({ embeddedNodes: 0, env: { STARTER_CREDITS: "1000" } });

describe("idempotent submission", () => {
  it("replays the first response for the same key and request: same body, no new job, no new charge", async () => {
    const headers = { "idempotency-key": "order-1" };
    const first = await execute(ctx.dev, ctx.key, "token-count", { text: "hello", model: "gpt-4o" }, headers);
    const before = { balance: await balance(), jobs: await jobCount() };
    // Same logical request, members in another order.
    const again = await ctx.dev.withKey(ctx.key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      headers,
      body: '{"input":{"model":"gpt-4o","text":"hello"}}',
    });
    expect(again.status).toBe(first.status);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(await again.json()).toEqual(await first.json());
    expect({ balance: await balance(), jobs: await jobCount() }).toEqual(before);
  });

  it("409 IDEMPOTENCY_CONFLICT for the same key with a different request", async () => {
    await execute(ctx.dev, ctx.key, "token-count", { text: "one" }, { "idempotency-key": "order-2" });
    const other = await execute(ctx.dev, ctx.key, "token-count", { text: "two" }, { "idempotency-key": "order-2" });
    expect(other.status).toBe(409);
    expect((await other.json()).error.code).toBe("IDEMPOTENCY_CONFLICT");
    const otherService = await execute(
      ctx.dev,
      ctx.key,
      "text-sentiment",
      { text: "one" },
      { "idempotency-key": "order-2" },
    );
    expect(otherService.status).toBe(409);
  });

  it("does not consume a key on a request that failed validation", async () => {
    const bad = await execute(ctx.dev, ctx.key, "token-count", { text: "" }, { "idempotency-key": "order-3" });
    expect(bad.status).toBe(422);
    const good = await execute(ctx.dev, ctx.key, "token-count", { text: "fine now" }, { "idempotency-key": "order-3" });
    expect(good.status).toBe(202);
    expect(good.headers.get("idempotent-replayed")).toBeNull();
  });

  it("keeps keys per developer: another developer's identical key is independent", async () => {
    const other = await signUpDeveloper(ctx.server.baseUrl);
    const otherKey = await other.createApiKey();
    const mine = await execute(
      ctx.dev,
      ctx.key,
      "token-count",
      { text: "shared" },
      { "idempotency-key": "shared-key" },
    );
    const theirs = await execute(
      other,
      otherKey,
      "token-count",
      { text: "shared" },
      { "idempotency-key": "shared-key" },
    );
    expect(theirs.status).toBe(202);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect((await theirs.json()).jobId).not.toBe((await mine.json()).jobId);
  });

  it("50 concurrent duplicates create exactly one job and one charge", async () => {
    const before = { balance: await balance(), jobs: await jobCount() };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        execute(
          ctx.dev,
          ctx.key,
          "text-summarize",
          { text: "Concurrency is hard. Idempotency helps." },
          { "idempotency-key": "burst" },
        ),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(202));
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(new Set(bodies.map((b) => b.jobId)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(49);
    expect({ balance: await balance(), jobs: await jobCount() }).toEqual({
      balance: before.balance - 2,
      jobs: before.jobs + 1,
    });
  });
});
