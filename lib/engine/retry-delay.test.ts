import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./node-reports";

describe("retry backoff", () => {
  it("grows exponentially with jitter between half and the full step", () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const ceiling = 1000 * 2 ** (attempt - 1);
      for (let i = 0; i < 50; i++) {
        const delay = retryDelayMs(attempt, 1000);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it("never waits more than five minutes", () => {
    expect(retryDelayMs(30, 1000)).toBeLessThanOrEqual(300_000);
  });
});
