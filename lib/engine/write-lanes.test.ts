import { describe, expect, it } from "vitest";
import { lanes } from "./write-lanes";

/** Lanes whose writes are recorded and finish only when the test says so. */
function recordedLanes(
  options: { together?: (a: string, b: string) => boolean; maxItems?: number; maxWeight?: number } = {},
) {
  const writes: string[][] = [];
  const pending: { items: string[]; finish: (failed?: string[]) => void }[] = [];
  const lane = lanes<string, string>({
    write: (items) => {
      writes.push(items);
      return new Promise((resolve, reject) => {
        pending.push({
          items,
          finish: (failed = []) => {
            const refused = items.filter((item) => failed.includes(item));
            if (refused.length > 0) reject(new Error(`refused ${refused.join(",")}`));
            else resolve(items.map((item) => `${item} written`));
          },
        });
      });
    },
    together: options.together ?? (() => true),
    maxItems: options.maxItems ?? 10,
    // An item weighs the number at its end, if any ("big5" weighs 5).
    weight: (item) => Number(/\d+$/.exec(item)?.[0] ?? 1),
    maxWeight: options.maxWeight ?? 100,
  });
  /** Finishes the write in flight (failing it if it holds any of `failed`) and lets the lane go on. */
  const finishNext = async (failed?: string[]) => {
    pending.shift()?.finish(failed);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { lane, writes, finishNext };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("a developer's lane", () => {
  it("writes at once when idle, and together what arrives while a write is in flight", async () => {
    const { lane, writes, finishNext } = recordedLanes();
    const results = ["a", "b", "c", "d"].map((item) => lane.write("developer-1", item));
    await settle();
    expect(writes).toEqual([["a"]]);
    await finishNext();
    expect(writes).toEqual([["a"], ["b", "c", "d"]]);
    const late = lane.write("developer-1", "e");
    await finishNext();
    await finishNext();
    expect(await Promise.all([...results, late])).toEqual(["a", "b", "c", "d", "e"].map((i) => `${i} written`));
    expect(writes).toEqual([["a"], ["b", "c", "d"], ["e"]]);
  });

  it("writes a failed write of several again one item at a time, so each refusal is its own", async () => {
    const { lane, writes, finishNext } = recordedLanes();
    const settled = Promise.allSettled(["a", "b", "c", "d"].map((item) => lane.write("developer-2", item)));
    await finishNext();
    await finishNext(["c"]);
    await finishNext();
    await finishNext(["c"]);
    await finishNext();
    expect(writes).toEqual([["a"], ["b", "c", "d"], ["b"], ["c"], ["d"]]);
    const outcomes = await settled;
    expect(outcomes.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error("refused c"));
  });

  it("writes apart, in order, items that may not go together, and at most maxItems at once", async () => {
    const { lane, writes, finishNext } = recordedLanes({ together: (a, b) => a[0] === b[0], maxItems: 2 });
    const results = ["x1", "k1", "k2", "k3", "x2"].map((item) => lane.write("developer-3", item));
    for (let i = 0; i < 4; i++) await finishNext();
    await Promise.all(results);
    expect(writes).toEqual([["x1"], ["k1", "k2"], ["k3"], ["x2"]]);
  });

  it("writes together at most maxWeight of items, and alone an item heavier than that", async () => {
    const { lane, writes, finishNext } = recordedLanes({ maxWeight: 10 });
    const results = ["a", "b6", "c4", "d1", "e20", "f"].map((item) => lane.write("developer-6", item));
    for (let i = 0; i < 5; i++) await finishNext();
    await Promise.all(results);
    expect(writes).toEqual([["a"], ["b6", "c4"], ["d1"], ["e20"], ["f"]]);
  });

  it("does not make different developers wait for each other", async () => {
    const { lane, writes, finishNext } = recordedLanes();
    const first = lane.write("developer-4", "a");
    const second = lane.write("developer-5", "b");
    await settle();
    expect(writes).toEqual([["a"], ["b"]]);
    await finishNext();
    await finishNext();
    expect([await first, await second]).toEqual(["a written", "b written"]);
  });
});
