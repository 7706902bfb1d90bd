// The 202 of a submission is the job as it was created, with the database's time of creation: the same
// time its own route and its JOB_CREATED event show, and the one an idempotent replay repeats.
import { describe, expect, it } from "vitest";
import { onSignal, workChannel } from "@/lib/domain/signals";
import { waitForWork, workWaiters } from "@/lib/engine/work-signals";
import { isoTime } from "../support/expect-error";
import { eventually, execute, getJob, telemetry } from "../support/jobs";
import { usePostgres } from "../support/postgres";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0 });

describe("the response to a submission", () => {
  it("shows the job as created, at the time the job and its first event carry, and a replay repeats it exactly", async () => {
    const request = () =>
      execute(ctx.dev, ctx.key, "token-count", { text: "When was I made?" }, { "idempotency-key": "created-at" });
    const first = await request();
    expect(first.status).toBe(202);
    const body = await first.json();
    expect(body).toMatchObject({ status: "queued", createdAt: isoTime, startedAt: null, completedAt: null });
    expect(body.updatedAt).toBe(body.createdAt);

    expect((await getJob(ctx.dev, ctx.key, body.jobId)).createdAt).toBe(body.createdAt);
    const [created] = await telemetry(ctx.dev, ctx.key, body.jobId);
    expect(created).toMatchObject({ type: "JOB_CREATED", timestamp: body.createdAt });

    const replay = await request();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(body);
  });
});

describe("a submission's signal", () => {
  it("wakes the nodes waiting for the job's service, once the job is committed", async () => {
    const heard: string[] = [];
    const stopListening = await onSignal(workChannel, (payload) => heard.push(payload));
    try {
      const response = await execute(ctx.dev, ctx.key, "token-count", { text: "Is anyone waiting?" });
      expect(response.status).toBe(202);
      expect(
        await eventually(
          async () => heard,
          (signals) => signals.length > 0,
        ),
      ).toEqual([expect.stringMatching(/^token-count( |$)/)]); // the service, then (PostgreSQL) the creation's tag
    } finally {
      await stopListening();
    }
  });

  // PostgreSQL serialises the commits of notifying transactions on one lock: a job this process hands to its own
  // waiting claim needs no NOTIFY (lib/engine/work-signals.ts). PGlite's signals are in-process, after the commit.
  it("is no NOTIFY when a network node's claim of this process is waiting: the claim is handed the job", async () => {
    const heard: string[] = [];
    const stopListening = await onSignal(workChannel, (payload) => heard.push(payload));
    try {
      const started = Date.now();
      const claim = waitForWork(["token-count"], 10_000, undefined, { takesNetworkJobs: true });
      const { waiting } = await workWaiters();
      while (!waiting.some((w) => w.serviceIds.includes("token-count"))) await new Promise((r) => setTimeout(r, 1));
      const response = await execute(ctx.dev, ctx.key, "token-count", { text: "Handed over?" });
      expect(response.status).toBe(202);
      await claim;
      expect(Date.now() - started).toBeLessThan(9_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // a NOTIFY would have arrived by now
      expect(heard).toEqual(usePostgres() ? [] : ["token-count"]);
    } finally {
      await stopListening();
    }
  });
});
