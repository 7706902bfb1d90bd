// The 202 of a submission is the job as it was created, with the database's time of creation: the same
// time its own route and its JOB_CREATED event show, and the one an idempotent replay repeats.
import { describe, expect, it } from "vitest";
import { onSignal, workChannel } from "@/lib/domain/signals";
import { isoTime } from "../support/expect-error";
import { eventually, execute, getJob, telemetry } from "../support/jobs";
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
});
