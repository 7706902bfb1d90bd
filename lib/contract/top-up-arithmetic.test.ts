import { describe, expect, it } from "vitest";
import { creditsForTokenAmount, formatTokenAmount, tokenAmountForCredits } from "./top-up-arithmetic";

describe("top-up arithmetic on bigint base units", () => {
  it("credits are floor(tokenAmount × creditsPerToken / 10^decimals)", () => {
    expect(creditsForTokenAmount(5_500_000n, 100n, 6)).toBe(550n);
    expect(creditsForTokenAmount(9_999n, 100n, 6)).toBe(0n);
    expect(creditsForTokenAmount(10_000n, 100n, 6)).toBe(1n);
    // 18 decimals and amounts far past Number's range stay exact.
    expect(creditsForTokenAmount(123_456_789_000_000_000_000_000n, 3n, 18)).toBe(370_370n);
  });

  it("the quote for N credits is the smallest amount that buys at least N (exactly N unless the token is too coarse)", () => {
    for (const [credits, perToken, decimals] of [
      [1n, 100n, 6],
      [550n, 100n, 6],
      [7n, 3n, 18],
      [1_000n, 7n, 0],
      [5n, 1n, 2],
    ] as const) {
      const amount = tokenAmountForCredits(credits, perToken, decimals);
      expect(creditsForTokenAmount(amount, perToken, decimals)).toBeGreaterThanOrEqual(credits);
      expect(creditsForTokenAmount(amount - 1n, perToken, decimals)).toBeLessThan(credits);
    }
    expect(creditsForTokenAmount(tokenAmountForCredits(550n, 100n, 6), 100n, 6)).toBe(550n);
    // A whole-unit token at 7 credits each cannot buy exactly 1,000: 143 units buy 1,001.
    expect(tokenAmountForCredits(1_000n, 7n, 0)).toBe(143n);
  });

  it("formats base units as a token amount without trailing zeros", () => {
    expect(formatTokenAmount(1_234_500n, 6)).toBe("1.2345");
    expect(formatTokenAmount(5_000_000n, 6)).toBe("5");
    expect(formatTokenAmount(1n, 18)).toBe("0.000000000000000001");
    expect(formatTokenAmount(42n, 0)).toBe("42");
  });
});
