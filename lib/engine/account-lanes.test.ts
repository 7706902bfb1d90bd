import { describe, expect, it } from "vitest";
import { inAccountLane } from "./account-lanes";

/** A write that finishes when told to, recording when it started and ended. */
function controlledWrite(log: string[], name: string) {
  let finish!: (fail?: boolean) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = (fail) => (fail ? reject(new Error(`${name} failed`)) : resolve());
  });
  const write = async () => {
    log.push(`${name} starts`);
    await done;
    log.push(`${name} ends`);
    return name;
  };
  return { write, finish };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("an account's lane", () => {
  it("runs one developer's writes one at a time, in the order they arrived", async () => {
    const log: string[] = [];
    const [a, b, c] = ["a", "b", "c"].map((name) => controlledWrite(log, name));
    const results = [a, b, c].map((w) => inAccountLane("developer-1", w.write));
    await settle();
    expect(log).toEqual(["a starts"]);
    a.finish();
    await settle();
    expect(log).toEqual(["a starts", "a ends", "b starts"]);
    b.finish();
    c.finish();
    expect(await Promise.all(results)).toEqual(["a", "b", "c"]);
    expect(log).toEqual(["a starts", "a ends", "b starts", "b ends", "c starts", "c ends"]);
  });

  it("gives a failure to its own caller only, and the next write runs", async () => {
    const log: string[] = [];
    const [a, b] = ["a", "b"].map((name) => controlledWrite(log, name));
    const first = inAccountLane("developer-2", a.write);
    const second = inAccountLane("developer-2", b.write);
    a.finish(true);
    await expect(first).rejects.toThrow("a failed");
    b.finish();
    await expect(second).resolves.toBe("b");
  });

  it("does not make different developers wait for each other", async () => {
    const log: string[] = [];
    const [a, b] = ["a", "b"].map((name) => controlledWrite(log, name));
    const first = inAccountLane("developer-3", a.write);
    const second = inAccountLane("developer-4", b.write);
    await settle();
    expect(log).toEqual(["a starts", "b starts"]);
    b.finish();
    await expect(second).resolves.toBe("b");
    a.finish();
    await expect(first).resolves.toBe("a");
  });
});
