import { describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { submit, telemetry, waitForStatus } from "../support/jobs";
import { readEventStream } from "../support/sse";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper();

describe("the job events stream (SSE)", () => {
  it("streams every telemetry event in order, status changes, and ends at the final state", async () => {
    const job = await submit(ctx.dev, ctx.key, "text-summarize", {
      text: "One sentence here. Another sentence there. A third one closes.",
    });
    const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const messages = await readEventStream(res);
    const events = messages.filter((m) => m.event === "telemetry");
    expect(events.map((m) => Number(m.id))).toEqual(events.map((_, i) => i + 1));
    expect(events.map((m) => m.data.type)).toEqual((await telemetry(ctx.dev, ctx.key, job.jobId)).map((e) => e.type));
    const statuses = messages.filter((m) => m.event === "status").map((m) => m.data.status);
    expect(statuses.at(-1)).toBe("completed");
  });

  it("resumes after Last-Event-ID", async () => {
    const job = await submit(ctx.dev, ctx.key, "token-count", { text: "resume me" });
    await waitForStatus(ctx.dev, ctx.key, job.jobId);
    const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/events`, {
      headers: { "last-event-id": "3" },
    });
    const events = (await readEventStream(res)).filter((m) => m.event === "telemetry");
    expect(events[0].data.sequence).toBe(4);
    expect(events.at(-1)?.data.type).toBe("EXECUTION_COMPLETED");
  });

  it("is 404 for another developer's job and 400 for a bad Last-Event-ID", async () => {
    const job = await submit(ctx.dev, ctx.key, "token-count", { text: "mine" });
    const other = await signUpDeveloper(ctx.server.baseUrl);
    const otherKey = await other.createApiKey();
    expect((await other.withKey(otherKey, `/api/developers/jobs/${job.jobId}/events`)).status).toBe(404);
    // A whole number, as the OpenAPI document declares it: not what JavaScript's Number() reads besides.
    for (const lastEventId of ["abc", "1e3", "0x10", "-1", "1.5"]) {
      const bad = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/events`, {
        headers: { "last-event-id": lastEventId },
      });
      expect(bad.status, lastEventId).toBe(400);
      const badQuery = await ctx.dev.withKey(
        ctx.key,
        `/api/developers/jobs/${job.jobId}/events?lastEventId=${encodeURIComponent(lastEventId)}`,
      );
      expect(badQuery.status, `?lastEventId=${lastEventId}`).toBe(400);
    }
  });

  it("needs telemetry:read on an API key", async () => {
    const job = await submit(ctx.dev, ctx.key, "token-count", { text: "scoped" });
    const jobsOnly = await ctx.dev.createApiKey(["jobs:read"]);
    const res = await ctx.dev.withKey(jobsOnly, `/api/developers/jobs/${job.jobId}/events`);
    expect(res.status).toBe(403);
  });
});
