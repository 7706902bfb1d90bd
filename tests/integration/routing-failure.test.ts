import { beforeAll, describe, expect, it } from "vitest";
import { submit, telemetry, typesOf, waitForStatus } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0, env: { ROUTING_TIMEOUT_MS: "300" } });

beforeAll(async () => {
  // No node at all: nothing can take the job.
});

describe("routing", () => {
  it("fails a job no eligible node takes within ROUTING_TIMEOUT_MS, category routing, refunded", async () => {
    const job = await submit(ctx.dev, ctx.key, "text-sentiment", { text: "Nobody is listening." });
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done).toMatchObject({
      status: "failed",
      attempt: 0,
      error: { category: "routing", code: "NO_ELIGIBLE_NODE" },
    });
    expect(typesOf(await telemetry(ctx.dev, ctx.key, job.jobId))).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "ROUTING_FAILED",
      "JOB_FAILED",
    ]);
    const balance = await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(100);
  });
});
