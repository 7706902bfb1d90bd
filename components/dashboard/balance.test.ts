// The dashboard warns before the balance runs out, not only once a job is refused.
import { describe, expect, it } from "vitest";
import { isBalanceLow, runsLeftWarning } from "./balance";

describe("the Run bar's warning", () => {
  it("says how many runs are left once fewer than three", () => {
    expect(runsLeftWarning(10, 5)).toBe("Enough for 2 more runs.");
    expect(runsLeftWarning(5, 5)).toBe("Enough for 1 more run.");
  });

  it("stays quiet while the balance pays for three runs or more, and for free services", () => {
    expect(runsLeftWarning(15, 5)).toBeNull();
    expect(runsLeftWarning(0, 0)).toBeNull();
  });
});

describe("the overview's warning", () => {
  it("starts below ten credits", () => {
    expect(isBalanceLow(9)).toBe(true);
    expect(isBalanceLow(10)).toBe(false);
  });
});
