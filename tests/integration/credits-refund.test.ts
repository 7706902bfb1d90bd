import { describe, expect, it } from "vitest";
import { submit, waitForStatus } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

// No node at all: every job fails with a routing error after ROUTING_TIMEOUT_MS.
const ctx = withDeveloper({ embeddedNodes: 0, env: { ROUTING_TIMEOUT_MS: "200" } });

describe("refunds", () => {
  it("refunds the charge of a job that fails, restoring the balance", async () => {
    const job = await submit(ctx.dev, ctx.key, "text-summarize", {
      text: "Nobody will summarise this. It fails first.",
    });
    expect(job.creditCost).toBe(2);

    const failed = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(failed).toMatchObject({ status: "failed", error: { category: "routing" } });

    const history = await (await ctx.dev.withKey(ctx.key, "/api/credits/history")).json();
    expect(
      history.data.map((e: { type: string; amount: number; balanceAfter: number; jobId: string | null }) => [
        e.type,
        e.amount,
        e.balanceAfter,
        e.jobId,
      ]),
    ).toEqual([
      ["refund", 2, 100, job.jobId],
      ["charge", -2, 98, job.jobId],
      ["grant", 100, 100, null],
    ]);
    const balance = await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(100);
  });

  it("counts a refunded job as a failed job that used no credits", async () => {
    const metrics = await (await ctx.dev.withKey(ctx.key, "/api/developers/metrics")).json();
    expect(metrics).toMatchObject({
      totalJobs: 1,
      failedJobs: 1,
      completedJobs: 0,
      activeJobs: 0,
      creditsUsed: 0,
      successRate: 0,
    });
    expect(metrics.byService).toEqual([
      { serviceId: "text-summarize", jobs: 1, completed: 0, failed: 1, creditsUsed: 0 },
    ]);
  });
});
