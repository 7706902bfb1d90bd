// What the engine refuses writes nothing: a transition the state machine forbids, a report from a node that
// no longer holds the attempt (or a job that has ended), a second cancellation (so a refund is paid
// once), and a change to failed outside a transaction (its refund must commit with it).
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/domain/database";
import { applyJobChangeAtOnce, applyJobChanges } from "@/lib/engine/apply-change";
import { cancelJob } from "@/lib/engine/cancel-job";
import { claimJobs } from "@/lib/engine/claims";
import { oneJob } from "@/lib/engine/job-change";
import { completeExecution, failExecution, reportProgress, startExecution } from "@/lib/engine/node-reports";
import { effectsOf, engineNode, rowsOf } from "../support/engine";
import { submit } from "../support/jobs";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({
  embeddedNodes: 0,
  env: { ROUTING_TIMEOUT_MS: "600000", SWEEP_INTERVAL_MS: "3600000", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" },
});

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Subscribed to everything: a refused change must not announce anything either.
  const res = await ctx.dev.session("/api/developers/webhooks", {
    method: "POST",
    body: JSON.stringify({
      url: receiver.url("/refusals"),
      events: ["job.status_changed", "job.completed", "job.failed"],
    }),
  });
  expect(res.status).toBe(201);
  return () => receiver.close();
});

const submitted = async (text: string) => (await submit(ctx.dev, ctx.key, "token-count", { text })).jobId;
const accountOf = async (jobId: string) =>
  (await rowsOf<{ account_id: string }>(sql`select account_id from jobs where id = ${jobId}`))[0].account_id;

describe("a refused change", () => {
  it("the state machine forbids (routing → running, skipping assigned) throws and writes nothing", async () => {
    const jobId = await submitted("not started by hand");
    const before = await effectsOf(jobId);
    await expect(
      applyJobChangeAtOnce(jobId, { to: "running", from: ["routing"], events: [{ type: "EXECUTION_STARTED" }] }),
    ).rejects.toThrow(/cannot become running/);
    expect(await effectsOf(jobId)).toEqual(before);
    await cancelJob(await accountOf(jobId), jobId);
  });

  it("from a node that no longer holds the attempt (stale attempt, another node) is LEASE_LOST and writes nothing", async () => {
    const holder = await engineNode("holder");
    const stranger = await engineNode("stranger");
    const jobId = await submitted("held by one node");
    await claimJobs(holder, 1, 0);
    const before = await effectsOf(jobId);

    await expect(startExecution(holder, jobId, 2)).rejects.toMatchObject({ code: "LEASE_LOST" });
    await expect(startExecution(stranger, jobId, 1)).rejects.toMatchObject({ code: "LEASE_LOST" });
    await expect(reportProgress(stranger, jobId, 1, { progress: 50 })).rejects.toMatchObject({ code: "LEASE_LOST" });
    await expect(
      failExecution(stranger, jobId, 1, { code: "X", message: "not mine", retryable: false }),
    ).rejects.toMatchObject({ code: "LEASE_LOST" });
    expect(await effectsOf(jobId)).toEqual(before);
    await cancelJob(await accountOf(jobId), jobId);
  });

  it("from its node to a job that has ended is LEASE_LOST and writes nothing; a second cancellation is JOB_FINAL, refunding nothing more", async () => {
    const node = await engineNode("too-late");
    const jobId = await submitted("cancelled under the node");
    await claimJobs(node, 1, 0, undefined, { start: true });
    await cancelJob(await accountOf(jobId), jobId);
    const before = await effectsOf(jobId);
    expect(before.ledger).toEqual([
      { type: "charge", amount: -1 },
      { type: "refund", amount: 1 },
    ]);

    // A node learns only that it does not hold the job (whether it ended is none of its business).
    await expect(completeExecution(node, jobId, 1, { summary: "late", output: {} })).rejects.toMatchObject({
      code: "LEASE_LOST",
    });
    await expect(failExecution(node, jobId, 1, { code: "X", message: "late", retryable: false })).rejects.toMatchObject(
      { code: "LEASE_LOST" },
    );
    await expect(cancelJob(await accountOf(jobId), jobId)).rejects.toMatchObject({ code: "JOB_FINAL" });
    expect(await effectsOf(jobId)).toEqual(before);
  });

  it("to failed outside a transaction is refused before anything is written", async () => {
    const jobId = await submitted("failed only with its refund");
    const before = await effectsOf(jobId);
    await expect(
      applyJobChanges(await db(), oneJob(jobId), { to: "failed", events: [{ type: "JOB_FAILED" }] }),
    ).rejects.toThrow(/in a transaction/);
    expect(await effectsOf(jobId)).toEqual(before);
    await cancelJob(await accountOf(jobId), jobId);
  });
});
