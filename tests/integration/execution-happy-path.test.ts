import { describe, expect, it } from "vitest";
import { submit, telemetry, waitForStatus } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper();

describe("a job's normal run", () => {
  it("is accepted with 202 and a Location, queued, charged", async () => {
    const res = await ctx.dev.withKey(ctx.key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      body: JSON.stringify({ input: { text: "Hello, execution network!" } }),
    });
    expect(res.status).toBe(202);
    const job = await res.json();
    expect(res.headers.get("location")).toBe(`/api/developers/jobs/${job.jobId}`);
    expect(job).toMatchObject({
      serviceId: "token-count",
      status: "queued",
      progress: 0,
      attempt: 0,
      maxAttempts: 3,
      creditCost: 1,
      result: null,
      error: null,
      assignedNode: null,
    });
    expect(job.workflowRunId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("completes on a node with a result, progress 100 and the exact event order", async () => {
    const created = await submit(ctx.dev, ctx.key, "token-count", {
      text: "The quick brown fox jumps over the lazy dog.",
    });
    const job = await waitForStatus(ctx.dev, ctx.key, created.jobId);
    expect(job.status).toBe("completed");
    expect(job.progress).toBe(100);
    expect(job.attempt).toBe(1);
    expect(job.assignedNode).toMatchObject({ region: "embedded" });
    expect(job.result?.output).toMatchObject({ tokens: expect.any(Number) });
    expect(job.result?.summary).toEqual(expect.any(String));
    const events = await telemetry(ctx.dev, ctx.key, created.jobId);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const order = events.map((e) => e.type);
    const withoutProvider = order.filter((t) => t !== "PROVIDER_REQUEST");
    expect(withoutProvider).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "RESULT_STORED",
      "EXECUTION_COMPLETED",
    ]);
    // Provider requests sit between the start of execution and the stored result.
    const firstProvider = order.indexOf("PROVIDER_REQUEST");
    expect(firstProvider).toBeGreaterThan(order.indexOf("EXECUTION_STARTED"));
    expect(firstProvider).toBeLessThan(order.indexOf("RESULT_STORED"));
  });

  it("keeps logs oldest first with sources and levels", async () => {
    const created = await submit(ctx.dev, ctx.key, "text-sentiment", { text: "I love this product. It is wonderful." });
    await waitForStatus(ctx.dev, ctx.key, created.jobId);
    const logs = (await (await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${created.jobId}/logs`)).json()) as {
      sequence: number;
      source: string;
      level: string;
    }[];
    expect(logs.map((l) => l.sequence)).toEqual(logs.map((_, i) => i + 1));
    expect(new Set(logs.map((l) => l.source))).toContain("platform");
    expect(new Set(logs.map((l) => l.source))).toContain("node");
  });
});
