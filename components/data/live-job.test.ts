import { describe, expect, it } from "vitest";
import type { ExecutionJob, TelemetryEvent } from "./types";
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
