import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExecutionJob, ExecutionLog, TelemetryEvent } from "./types";
import { fetchJobLogsAfter } from "./jobs";
import { applyUpdate, type JobSnapshot } from "./live-job";

const job = (status: ExecutionJob["status"], updatedMs: number, extra: Partial<ExecutionJob> = {}): ExecutionJob => ({
  jobId: "00000000-0000-4000-8000-000000000001",
  workflowRunId: "wr",
  serviceId: "text-sentiment",
  status,
  progress: 0,
  input: {},
  creditCost: 1,
  placement: "any",
  attempt: 1,
  maxAttempts: 3,
  assignedNode: null,
  result: null,
  error: null,
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(updatedMs).toISOString(),
  startedAt: null,
  completedAt: null,
  ...extra,
});
const event = (sequence: number): TelemetryEvent => ({
  eventId: `e${sequence}`,
  jobId: "j",
  sequence,
  type: "PROVIDER_REQUEST",
  timestamp: new Date(sequence).toISOString(),
  attempt: 1,
});

describe("live updates on the job page apply in order", () => {
  const start: JobSnapshot = { job: job("running", 1000), events: [event(1), event(2)] };

  it("merges events by sequence: duplicates and older ones change nothing, late ones land in order", () => {
    expect(applyUpdate(start, { type: "events", events: [event(1), event(2)] })).toBe(start);
    const next = applyUpdate(start, { type: "events", events: [event(4), event(3), event(3)] });
    expect(next.events.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
  });

  it("ignores a job snapshot older than the one shown", () => {
    expect(applyUpdate(start, { type: "job", job: job("assigned", 500) })).toBe(start);
    expect(applyUpdate(start, { type: "job", job: job("completed", 2000) }).job.status).toBe("completed");
  });

  it("keeps a final job as it is", () => {
    const done = applyUpdate(start, { type: "job", job: job("completed", 2000) });
    expect(applyUpdate(done, { type: "job", job: job("running", 3000) })).toBe(done);
  });
});

describe("the job page's log", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads every line after the last one it holds, page after page while the answer says more follow", async () => {
    const lines = Array.from({ length: 5 }, (_, i): ExecutionLog => ({
      sequence: i + 1,
      timestamp: new Date(i).toISOString(),
      level: "info",
      source: "node",
      message: `line ${i + 1}`,
    }));
    const asked: string[] = [];
    // A server that pages by two lines.
    vi.stubGlobal("fetch", async (url: string) => {
      asked.push(url);
      const after = Number(new URL(url, "http://x").searchParams.get("after"));
      const page = lines.filter((l) => l.sequence > after).slice(0, 2);
      const hasMore = (page.at(-1)?.sequence ?? after) < lines.length;
      return new Response(JSON.stringify(page), { headers: { "x-has-more": String(hasMore) } });
    });
    const read = await fetchJobLogsAfter("job-1", 1);
    expect(read.map((l) => l.sequence)).toEqual([2, 3, 4, 5]);
    expect(asked).toEqual(["/api/developers/jobs/job-1/logs?after=1", "/api/developers/jobs/job-1/logs?after=3"]);
  });
});
