import { describe, expect, it, vi } from "vitest";
import { processState, sameClassInEveryBundle } from "./singleton";

/** A second copy of a module, as a production build makes one for instrumentation and one for the routes. */
async function anotherCopyOf<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}

describe("classes whose values cross between bundles", () => {
  it("DomainError: one copy's error is an instance of the other copy's class", async () => {
    const mine = await import("@/lib/domain/errors");
    const theirs = await anotherCopyOf(() => import("@/lib/domain/errors"));
    expect(theirs.DomainError).not.toBe(mine.DomainError);

    const error = new theirs.DomainError("INSUFFICIENT_CREDITS", "Not enough credits for this request.");
    expect(error instanceof mine.DomainError).toBe(true);
    expect(error instanceof Error).toBe(true);
    expect(new Error("plain") instanceof mine.DomainError).toBe(false);
  });

  it("Computed: one copy's value is an instance of the other copy's class, and a result object is not", async () => {
    const mine = await import("@/lib/engine/job-change");
    const theirs = await anotherCopyOf(() => import("@/lib/engine/job-change"));
    expect(theirs.Computed).not.toBe(mine.Computed);

    expect(theirs.Computed.now instanceof mine.Computed).toBe(true);
    expect(theirs.Computed.atLeast(3) instanceof mine.Computed).toBe(true);
    // What a node reports is JSON: whatever its keys, it is a value to store, never SQL to compute.
    expect(JSON.parse('{"kind":"now","parameter":null}') instanceof mine.Computed).toBe(false);
    expect((null as unknown) instanceof mine.Computed).toBe(false);
  });

  it("keeps the ordinary check for a subclass of a marked class", () => {
    class Marked {}
    sameClassInEveryBundle(Marked, "test.Marked");
    class Special extends Marked {}
    expect(new Special() instanceof Marked).toBe(true);
    expect(new Marked() instanceof Special).toBe(false);
    expect(new Special() instanceof Special).toBe(true);
  });
});

describe("state one copy of a module writes and another reads", () => {
  it("is one record for every copy: the payment watcher's failures reach /api/health's copy", async () => {
    const watcherCopy = await import("@/lib/payments/chain");
    const healthCopy = await anotherCopyOf(() => import("@/lib/payments/chain"));
    expect(healthCopy.paymentsRpcHealth).not.toBe(watcherCopy.paymentsRpcHealth);
    const state = processState("payments-rpc-health", () => ({ lastOutcome: "ok" }));
    state.lastOutcome = "degraded";
    try {
      expect(watcherCopy.paymentsRpcHealth()).toBe("degraded");
      expect(healthCopy.paymentsRpcHealth()).toBe("degraded");
    } finally {
      state.lastOutcome = "ok";
    }
  });

  it("is created once, on first use", () => {
    let created = 0;
    const make = () => ({ n: ++created });
    expect(processState("test.created-once", make)).toBe(processState("test.created-once", make));
    expect(created).toBe(1);
  });
});
