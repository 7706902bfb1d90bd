// The dashboard writes dates, credits and names one way, on the server and in any browser alike.
import { beforeAll, describe, expect, it } from "vitest";

// A browser far from UTC: the formatter must not follow the machine's time zone.
process.env.TZ = "America/Los_Angeles";
let format: typeof import("./format");
beforeAll(async () => {
  format = await import("./format");
});

describe("dates", () => {
  it("are written in UTC and say so, whatever the machine's time zone", () => {
    expect(format.formatDateTime("2026-11-25T23:30:00.000Z")).toBe("Nov 25, 2026, 23:30 UTC");
    expect(format.formatDate("2026-11-25T23:30:00.000Z")).toBe("Nov 25, 2026");
  });

  it("show a dash (or the given word) for a missing time", () => {
    expect(format.formatDateTime(null)).toBe("—");
    expect(format.formatDateTime(null, "Never")).toBe("Never");
  });
});

describe("credits", () => {
  it("are counted in words, singular for one", () => {
    expect(format.formatCredits(1)).toBe("1 credit");
    expect(format.formatCredits(0)).toBe("0 credits");
    expect(format.formatCredits(1250)).toBe("1,250 credits");
  });

  it("never write a minus zero: nothing charged is 0 credits", () => {
    expect(format.formatCredits(-0)).toBe("0 credits");
    expect(format.formatCreditMovement(-0)).toBe("no credits charged");
    expect(format.formatSignedCredits(-0)).toBe("0");
  });

  it("a movement or a balance of one is one credit, in either direction", () => {
    expect(format.formatCredits(-1)).toBe("−1 credit");
    expect(format.formatCreditMovement(-1)).toBe("1 credit charged");
    expect(format.formatCreditMovement(1)).toBe("refunded 1 credit");
    expect(format.formatSignedCredits(-1)).toBe("−1");
  });

  it("a count with a word around it keeps the singular: one more credit", () => {
    expect(format.formatCredits(1, "more")).toBe("1 more credit");
    expect(format.formatCredits(2500, "more")).toBe("2,500 more credits");
  });
});

describe("names", () => {
  it("a new profile is named after the wallet's short address", () => {
    expect(format.suggestedProfileName("0x1234567890abcdef1234567890abcdef12345678")).toBe("Developer 0x1234…5678");
  });
});
