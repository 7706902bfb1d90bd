import { describe, expect, it } from "vitest";
import { execute } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0, env: { STARTER_CREDITS: "37", RATE_LIMIT_PER_MINUTE: "0" } });

describe("credits under concurrency", () => {
  it("accepts exactly the 37 affordable submissions out of 100 concurrent ones and ends at 0", async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => execute(ctx.dev, ctx.key, "token-count", { text: `job ${i}` })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(37);
    expect(statuses.filter((s) => s === 402)).toHaveLength(63);
    const balance = await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(0);
    const history = await (await ctx.dev.withKey(ctx.key, "/api/credits/history?limit=100")).json();
    const charges = history.data.filter((e: { type: string }) => e.type === "charge");
    expect(charges).toHaveLength(37);
    // balanceAfter walks down 36, 35, … 0 with no gaps or negatives.
    expect(charges.map((e: { balanceAfter: number }) => e.balanceAfter).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 37 }, (_, i) => i),
    );
  });
});
