import { describe, expect, it } from "vitest";
import type { TelemetryEvent } from "@/components/data/types";
import { phaseOf, phaseSpans, queueAndRunTime } from "./lifecycle";

let sequence = 0;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, 0, ms)).toISOString();
const event = (type: TelemetryEvent["type"], ms: number, attempt = 1): TelemetryEvent => ({
  eventId: `e${++sequence}`,
  jobId: "j",
  sequence,
  type,
  timestamp: at(ms),
  attempt,
});

describe("the lifecycle read from telemetry", () => {
  it("gives each phase the time until the next one began, and leaves the current one open", () => {
    const spans = phaseSpans([
      event("JOB_CREATED", 0, 0),
      event("WORKFLOW_INITIALIZED", 5, 0),
      event("ROUTING_STARTED", 10),
      event("NODE_ASSIGNED", 40),
      event("EXECUTION_STARTED", 45),
      event("PROVIDER_REQUEST", 60),
    ]);
    expect(spans.map((s) => [s.phase, s.endedAt === null ? null : s.endedAt - s.startedAt])).toEqual([
      ["queued", 10],
      ["routing", 30],
      ["assigned", 5],
      ["running", null],
    ]);
  });

  it("shows a retry as its own phase and the phases of the next attempt again", () => {
    const spans = phaseSpans([
      event("JOB_CREATED", 0, 0),
      event("ROUTING_STARTED", 1),
      event("NODE_ASSIGNED", 2),
      event("EXECUTION_STARTED", 3),
      event("EXECUTION_FAILED", 50),
      event("RETRY_SCHEDULED", 50),
      event("ROUTING_STARTED", 1050, 2),
      event("NODE_ASSIGNED", 1060, 2),
      event("EXECUTION_STARTED", 1070, 2),
      event("RESULT_STORED", 1100, 2),
      event("EXECUTION_COMPLETED", 1100, 2),
    ]);
    expect(spans.map((s) => `${s.phase}#${s.attempt}`)).toEqual([
      "queued#0",
      "routing#1",
      "assigned#1",
      "running#1",
      "retrying#1",
      "routing#2",
      "assigned#2",
      "running#2",
      "completed#2",
    ]);
    expect(spans[4].endedAt! - spans[4].startedAt).toBe(1000);
  });

  it("calls a job failed with CANCELLED cancelled", () => {
    expect(phaseOf({ status: "failed", error: { category: "runtime", code: "CANCELLED", message: "" } })).toBe(
      "cancelled",
    );
    expect(phaseOf({ status: "failed", error: { category: "runtime", code: "INVALID_IMAGE", message: "" } })).toBe(
      "failed",
    );
    expect(phaseOf({ status: "running", error: null })).toBe("running");
  });

  it("separates queue time from run time, counting to now while the job runs", () => {
    const job = { createdAt: at(0), startedAt: at(300), completedAt: null };
    expect(queueAndRunTime(job, Date.parse(at(1000)))).toEqual({ queueMs: 300, runMs: 700, totalMs: 1000 });
    expect(queueAndRunTime({ ...job, completedAt: at(900) }, Date.parse(at(5000)))).toEqual({
      queueMs: 300,
      runMs: 600,
      totalMs: 900,
    });
    expect(queueAndRunTime({ createdAt: at(0), startedAt: null, completedAt: null }, Date.parse(at(250)))).toEqual({
      queueMs: 250,
      runMs: null,
      totalMs: 250,
    });
  });
});
