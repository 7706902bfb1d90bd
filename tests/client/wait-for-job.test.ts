// waitForJob polls with a growing interval until the job is final, resolves with it (failed too),
// and gives up at its deadline with the last state it saw.
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionApiError, ExecutionClient, JobWaitTimeoutError, type ExecutionJob } from "@/lib/client/src/index";
import { envelope, jobFixture, startFakeApi, type FakeApi, type Reply } from "./fake-api";

let api: FakeApi;
afterEach(() => api?.close());

const jobReply = (overrides: Record<string, unknown>): Reply => ({ status: 200, body: jobFixture(overrides) });
const clientFor = () => new ExecutionClient({ apiKey: "dev_test", baseUrl: api.baseUrl, maxRetries: 0 });

describe("waitForJob", () => {
  it("resolves with the completed job and reports each change to onUpdate", async () => {
    const states = [
      { status: "queued", progress: 0, updatedAt: "2025-01-01T00:00:00.000Z" },
      { status: "queued", progress: 0, updatedAt: "2025-01-01T00:00:00.000Z" },
      { status: "running", progress: 50, updatedAt: "2025-01-01T00:00:01.000Z" },
      {
        status: "completed",
        progress: 100,
        updatedAt: "2025-01-01T00:00:02.000Z",
        result: { summary: "3 tokens", output: { tokens: 3 } },
      },
    ];
    api = await startFakeApi((_, n) => jobReply(states[Math.min(n, states.length - 1)] ?? {}));
    const updates: string[] = [];
    const job = await clientFor().waitForJob("job_1", {
      intervalMs: 20,
      onUpdate: (j) => updates.push(`${j.status}:${j.progress}`),
    });
    expect(job).toMatchObject({ status: "completed", progress: 100, result: { summary: "3 tokens" } });
    expect(updates).toEqual(["queued:0", "running:50", "completed:100"]);
    expect(api.requests.every((r) => r.url === "/api/developers/jobs/job_1")).toBe(true);
    expect(api.requests).toHaveLength(4);
  });

  it("resolves (does not reject) with a failed job: the failure is the job's outcome", async () => {
    const error = { category: "runtime", code: "PROVIDER_ERROR", message: "boom" };
    api = await startFakeApi(() => jobReply({ status: "failed", error }));
    await expect(clientFor().waitForJob("job_1")).resolves.toMatchObject({ status: "failed", error });
  });

  it("backs off while nothing changes", async () => {
    api = await startFakeApi(() => jobReply({ status: "running" }));
    const error = await clientFor()
      .waitForJob("job_1", { intervalMs: 100, timeoutMs: 1_500 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobWaitTimeoutError);
    // Polls at 0, 100, 250, 475, 812 and 1318 ms (waits of 100 × 1.5^i): 6 requests before the deadline,
    // where fixed 100 ms polling would make 15. Each gap is its wait plus the request's own time.
    const gaps = api.requests.slice(1).map((r, i) => r.at - (api.requests[i]?.at ?? 0));
    expect(api.requests).toHaveLength(6);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(100 * 1.5 ** i - 15);
      expect(gap).toBeLessThan(100 * 1.5 ** i + 60);
    });
  });

  it("rejects with JobWaitTimeoutError carrying the last job seen", async () => {
    api = await startFakeApi(() => jobReply({ status: "running", progress: 40 }));
    const error = await clientFor()
      .waitForJob("job_1", { intervalMs: 50, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobWaitTimeoutError);
    const { job, jobId, timeoutMs } = error as JobWaitTimeoutError;
    expect({ jobId, timeoutMs }).toEqual({ jobId: "job_1", timeoutMs: 300 });
    expect(job).toMatchObject<Partial<ExecutionJob>>({ status: "running", progress: 40 });
  });

  it("a poll stuck on a slow server still ends at the deadline", async () => {
    api = await startFakeApi(() => ({ ...jobReply({ status: "running" }), delayMs: 10_000 }));
    const started = performance.now();
    const error = await clientFor()
      .waitForJob("job_1", { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobWaitTimeoutError);
    expect((error as JobWaitTimeoutError).job).toBeNull();
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("keeps polling through transient failures", async () => {
    api = await startFakeApi((_, n) =>
      n === 1
        ? { drop: true }
        : n === 2
          ? { status: 503, headers: { "retry-after": "0" } }
          : jobReply({ status: n === 0 ? "running" : "completed" }),
    );
    await expect(clientFor().waitForJob("job_1", { intervalMs: 20 })).resolves.toMatchObject({ status: "completed" });
    expect(api.requests).toHaveLength(4);
  });

  it("stops at once on an error that polling cannot fix", async () => {
    api = await startFakeApi(() => envelope("JOB_NOT_FOUND", 404));
    await expect(clientFor().waitForJob("job_x", { intervalMs: 20 })).rejects.toBeInstanceOf(ExecutionApiError);
    expect(api.requests).toHaveLength(1);
  });
});
