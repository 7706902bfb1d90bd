// A job nobody has picked up yet (no node at all, and a routing timeout far away): only its owner can
// cancel it, which ends it at once and refunds it.
import { describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { expectError } from "../support/expect-error";
import { getJob, submit, telemetry, typesOf } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0, env: { ROUTING_TIMEOUT_MS: "600000" } });
const balance = async () => (await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json()).balance as number;

describe("a queued job", () => {
  it("is a 404 JOB_NOT_FOUND to another developer's cancel, and stays as it was", async () => {
    const job = await submit(ctx.dev, ctx.key, "token-count", { text: "not yours to cancel" });
    const before = await getJob(ctx.dev, ctx.key, job.jobId);
    expect(before).toMatchObject({ status: "routing", assignedNode: null, attempt: 0 });
    const bob = await signUpDeveloper(ctx.server.baseUrl, { name: "Bob" });
    await expectError(
      await bob.withKey(await bob.createApiKey(), `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" }),
      404,
      "JOB_NOT_FOUND",
    );
    await expectError(
      await bob.session(`/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" }),
      404,
      "JOB_NOT_FOUND",
    );
    expect(await getJob(ctx.dev, ctx.key, job.jobId)).toEqual(before);
    expect(typesOf(await telemetry(ctx.dev, ctx.key, job.jobId))).not.toContain("JOB_CANCELLED");
  });

  it("is cancelled by its owner before any node picks it up: failed with CANCELLED, JOB_CANCELLED, refunded", async () => {
    const start = await balance();
    const job = await submit(ctx.dev, ctx.key, "text-summarize", {
      text: "Nobody will pick this up. It is cancelled first.",
    });
    expect(await balance()).toBe(start - 2);
    const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    const cancelled = await res.json();
    expect(cancelled).toMatchObject({
      jobId: job.jobId,
      status: "failed",
      attempt: 0,
      assignedNode: null,
      result: null,
      error: { code: "CANCELLED" },
    });
    expect(await getJob(ctx.dev, ctx.key, job.jobId)).toEqual(cancelled);
    expect(typesOf(await telemetry(ctx.dev, ctx.key, job.jobId)).at(-1)).toBe("JOB_CANCELLED");
    expect(await balance()).toBe(start);
    const history = await (await ctx.dev.withKey(ctx.key, "/api/credits/history?limit=2")).json();
    expect(
      history.data.map((e: { type: string; amount: number; jobId: string | null }) => [e.type, e.amount, e.jobId]),
    ).toEqual([
      ["refund", 2, job.jobId],
      ["charge", -2, job.jobId],
    ]);
  });
});
