import { describe, expect, it } from "vitest";
import { assertTransition, canTransition, nextProgress, statusesBefore, stopOutcome } from "./job-machine";
import { jobStatuses } from "@/lib/contract/vocabulary";

describe("the job state machine", () => {
  it("follows the normal run queued → routing → assigned → running → completed", () => {
    expect(canTransition("queued", "routing")).toBe(true);
    expect(canTransition("routing", "assigned")).toBe(true);
    expect(canTransition("assigned", "running")).toBe(true);
    expect(canTransition("running", "completed")).toBe(true);
  });

  it("never changes a final job", () => {
    for (const to of jobStatuses) {
      expect(canTransition("completed", to)).toBe(false);
      expect(canTransition("failed", to)).toBe(false);
    }
    expect(() => assertTransition("completed", "failed")).toThrow(/already completed/);
  });

  it("lets every non-final job fail (cancel, routing timeout, exhaustion)", () => {
    for (const from of ["queued", "routing", "assigned", "running", "retrying"] as const) {
      expect(canTransition(from, "failed")).toBe(true);
    }
  });

  it("only completes a running job", () => {
    expect(statusesBefore("completed")).toEqual(["running"]);
  });

  it("routes a lost or retried job again", () => {
    expect(statusesBefore("routing").sort()).toEqual(["assigned", "queued", "retrying", "running"]);
  });

  it("keeps progress within 0–100 and never lets it go down", () => {
    expect(nextProgress(40, 20)).toBe(40);
    expect(nextProgress(40, 60.4)).toBe(60);
    expect(nextProgress(0, 250)).toBe(100);
    expect(nextProgress(0, -5)).toBe(0);
  });
});

describe("stopOutcome: what follows a failure, a lost node, a routing timeout or a cancellation", () => {
  const failure = { kind: "attempt-failed", code: "PROVIDER_ERROR", message: "boom", retryDelayMs: 250 } as const;

  it("retries a retryable failure after the delay while attempts remain, and fails it on the last attempt", () => {
    expect(stopOutcome({ attempt: 1, maxAttempts: 3 }, { ...failure, retryable: true })).toEqual({
      kind: "retry",
      nextAttempt: 2,
      delayMs: 250,
    });
    expect(stopOutcome({ attempt: 3, maxAttempts: 3 }, { ...failure, retryable: true })).toEqual({
      kind: "fail",
      error: { category: "runtime", code: "PROVIDER_ERROR", message: "boom" },
    });
  });

  it("fails a non-retryable failure at once, whatever attempts remain", () => {
    expect(stopOutcome({ attempt: 1, maxAttempts: 3 }, { ...failure, retryable: false })).toMatchObject({
      kind: "fail",
      error: { code: "PROVIDER_ERROR" },
    });
  });

  it("routes a job whose node was lost again at once, or fails it NODE_LOST when no attempts remain", () => {
    expect(stopOutcome({ attempt: 2, maxAttempts: 3 }, { kind: "node-lost", reason: "lease expired" })).toEqual({
      kind: "reroute",
      nextAttempt: 3,
    });
    expect(stopOutcome({ attempt: 3, maxAttempts: 3 }, { kind: "node-lost", reason: "lease expired" })).toMatchObject({
      kind: "fail",
      error: { category: "runtime", code: "NODE_LOST" },
    });
  });

  it("fails an unroutable job as a routing failure and a cancelled one as CANCELLED, attempts aside", () => {
    expect(stopOutcome({ attempt: 0, maxAttempts: 3 }, { kind: "unroutable", waitedMs: 500 })).toEqual({
      kind: "fail",
      error: {
        category: "routing",
        code: "NO_ELIGIBLE_NODE",
        message: "No eligible execution node took the job within 500 ms.",
      },
    });
    expect(stopOutcome({ attempt: 1, maxAttempts: 3 }, { kind: "cancelled" })).toMatchObject({
      kind: "cancel",
      error: { code: "CANCELLED" },
    });
  });
});
