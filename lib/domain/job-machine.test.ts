import { describe, expect, it } from "vitest";
import { assertTransition, canTransition, nextProgress, statusesBefore } from "./job-machine";
import { jobStatuses } from "./job-states";

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
