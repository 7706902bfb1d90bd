import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { sleep } from "./sleep";

describe("sleep", () => {
  it("leaves no abort listener behind when the time runs out, however often it is called on one signal", async () => {
    const controller = new AbortController();
    for (let turn = 0; turn < 20; turn++) await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("ends early when the signal aborts", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await waiting;
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
