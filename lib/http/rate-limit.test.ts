import { describe, expect, it } from "vitest";
import { DomainError } from "@/lib/domain/errors";
import { takeToken } from "./rate-limit";

describe("the per-credential rate limit", () => {
  it("allows a full bucket, then answers RATE_LIMITED with a whole-second Retry-After", () => {
    const now = 1_000_000;
    for (let i = 0; i < 60; i++) takeToken("key:a", 60, now);
    try {
      takeToken("key:a", 60, now);
      expect.unreachable("the 61st request in the same instant must be limited");
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe("RATE_LIMITED");
      expect((error as DomainError).retryAfterSeconds).toBe(1);
    }
  });

  it("refills over time and keeps buckets per credential", () => {
    const now = 2_000_000;
    for (let i = 0; i < 60; i++) takeToken("key:b", 60, now);
    expect(() => takeToken("key:c", 60, now)).not.toThrow();
    expect(() => takeToken("key:b", 60, now + 1_000)).not.toThrow();
  });

  it("is off when the limit is 0", () => {
    for (let i = 0; i < 1000; i++) takeToken("key:d", 0);
  });
});
