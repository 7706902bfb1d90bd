import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { eventually, submit, telemetry, typesOf, waitForStatus } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

let llm: OpenAiCompatibleServer;
beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ apiKey: "sk-test" });
});
afterAll(() => llm.close());
const ctx = withDeveloper(() => ({
  env: {
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: "sk-test",
    LLM_MODEL: "test-model",
    // Long enough that the first test sees its first RETRY_SCHEDULED and heals the provider before the last
    // attempt: with 20 ms, a busy CI machine polled too late and all three attempts had failed (seen once).
    RETRY_BASE_DELAY_MS: "1000",
    STARTER_CREDITS: "1000",
  },
}));

const balance = async () => (await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json()).balance as number;

describe("failures, retries and cancellation", () => {
  it("retries a transient provider failure, then succeeds on the next attempt", async () => {
    llm.behave({ reply: "error", status: 503 });
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "Say hello" });
    await eventually(
      () => telemetry(ctx.dev, ctx.key, job.jobId),
      (events) => events.some((e) => e.type === "RETRY_SCHEDULED"),
    );
    llm.behave({ reply: "normal" });
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done.status).toBe("completed");
    expect(done.attempt).toBeGreaterThanOrEqual(2);
    const types = typesOf(await telemetry(ctx.dev, ctx.key, job.jobId));
    expect(types.slice(0, 7)).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "EXECUTION_FAILED",
      "RETRY_SCHEDULED",
    ]);
    expect(types.slice(-2)).toEqual(["RESULT_STORED", "EXECUTION_COMPLETED"]);
  });

  it("fails for good after maxAttempts retryable failures, with a refund", async () => {
    llm.behave({ reply: "error", status: 500 });
    const before = await balance();
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "Will not work" });
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done.status).toBe("failed");
    expect(done.attempt).toBe(3);
    expect(done.error).toMatchObject({ category: "runtime", code: "PROVIDER_UNAVAILABLE" });
    expect(done.result).toBeNull();
    const types = typesOf(await telemetry(ctx.dev, ctx.key, job.jobId));
    expect(types.filter((t) => t === "EXECUTION_FAILED")).toHaveLength(3);
    expect(types.filter((t) => t === "RETRY_SCHEDULED")).toHaveLength(2);
    expect(types.at(-1)).toBe("JOB_FAILED");
    expect(await balance()).toBe(before);
    llm.behave({ reply: "normal" });
  });

  it("fails at once on a non-retryable provider error (4xx)", async () => {
    llm.behave({ reply: "error", status: 400 });
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "Bad request" });
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done).toMatchObject({
      status: "failed",
      attempt: 1,
      error: { category: "runtime", code: "PROVIDER_REJECTED" },
    });
    llm.behave({ reply: "normal" });
  });

  it("fails at once on a non-retryable runtime failure (blank text to summarize), refunding the charge", async () => {
    // (An invalid image no longer gets this far: submission refuses it, see image-input.test.ts.)
    const before = await balance();
    const job = await submit(ctx.dev, ctx.key, "text-summarize", { text: "   " });
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done.status).toBe("failed");
    expect(done.attempt).toBe(1);
    expect(done.error?.category).toBe("runtime");
    expect(await balance()).toBe(before);
  });

  it("cancels a running job: failed with CANCELLED, JOB_CANCELLED, refund, and it stays final", async () => {
    llm.behave({ reply: "slow", delayMs: 60_000 });
    const before = await balance();
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "Take your time" });
    await waitForStatus(ctx.dev, ctx.key, job.jobId, ["running"]);
    const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "failed", error: { code: "CANCELLED" } });
    const again = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" });
    expect(again.status).toBe(409);
    expect((await again.json()).error.code).toBe("JOB_FINAL");
    expect(await balance()).toBe(before);
    expect(typesOf(await telemetry(ctx.dev, ctx.key, job.jobId)).at(-1)).toBe("JOB_CANCELLED");
    llm.behave({ reply: "normal" });
    // The node learns of it and frees its slot: a following job still runs to completion.
    const next = await submit(ctx.dev, ctx.key, "token-count", { text: "after cancel" });
    expect((await waitForStatus(ctx.dev, ctx.key, next.jobId)).status).toBe("completed");
    const final = await (await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}`)).json();
    expect(final.status).toBe("failed");
  });
});
