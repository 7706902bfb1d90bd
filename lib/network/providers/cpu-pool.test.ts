import { afterAll, describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import { closeCpuPool, tasksRunInPool } from "./cpu-pool";
import { providers, tokenCountHereUpTo } from "./index";
import { ProviderError, type ProviderContext } from "./types";

afterAll(() => closeCpuPool());

function context(signal = new AbortController().signal) {
  const progress: number[] = [];
  const requests: Record<string, unknown>[] = [];
  const ctx: ProviderContext = {
    signal,
    progress: (p) => progress.push(p),
    providerRequest: (d) => requests.push(d),
    log: () => {},
  };
  return { ctx, progress, requests };
}

/** Counts how often a 5 ms timer fires on this thread while `work` runs: zero means the loop was blocked. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    return { value: await work(), ticks };
  } finally {
    clearInterval(timer);
  }
}

const tinySentences = "Go. ".repeat(5_000).trim();

describe("CPU-bound providers run in the worker-thread pool", () => {
  it("summarizes 5,000 tiny sentences without blocking this thread, ranking at most the capped number", async () => {
    const summarize = providers["text-summarize"];
    await summarize.warmUp?.();
    const { ctx, progress, requests } = context();
    const { value, ticks } = await ticksDuring(() => summarize.run({ text: tinySentences, sentences: 3 }, ctx));
    expect(value.output).toMatchObject({ sentenceCount: 5_000, rankedSentences: limits.summarizeMaxSentences });
    // The context's calls made in the worker reach the caller.
    expect(progress).toEqual([40, 90]);
    expect(requests[0]).toMatchObject({
      operation: "extractive-summary",
      sentences: 5_000,
      rankedSentences: limits.summarizeMaxSentences,
    });
    expect(ticks).toBeGreaterThan(2);
  });

  it("every text provider runs off this thread", async () => {
    // Counted by the pool, not by timer ticks: a fast worker may finish before a 5 ms timer fires (seen on Node 24).
    for (const id of ["text-sentiment", "language-detect", "token-count"] as const) {
      const before = tasksRunInPool();
      await providers[id].run({ text: "A long day. ".repeat(1_500) }, context().ctx);
      expect(tasksRunInPool(), id).toBe(before + 1);
    }
  });

  it("a provider's own failure keeps its code and retryability across the thread boundary", async () => {
    const failure = await providers["text-summarize"].run({ text: "   " }, context().ctx).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ code: "EMPTY_TEXT", retryable: false });
  });

  it("an aborted job's task is abandoned", async () => {
    const aborter = new AbortController();
    const running = providers["text-summarize"].run({ text: tinySentences }, context(aborter.signal).ctx);
    aborter.abort(new Error("cancelled"));
    await expect(running).rejects.toThrow();
  });

  it("a short token count runs on the calling thread, where it costs less than the hand-off; a long one in the pool", async () => {
    const count = providers["token-count"];
    await count.warmUp?.();
    const before = tasksRunInPool();
    const short = await count.run({ text: "x".repeat(tokenCountHereUpTo) }, context().ctx);
    expect(tasksRunInPool()).toBe(before);
    const long = await count.run({ text: "x".repeat(tokenCountHereUpTo + 1) }, context().ctx);
    expect(tasksRunInPool()).toBe(before + 1);
    // The same provider either way.
    expect(short.output).toMatchObject({ model: "gpt-4o", characters: tokenCountHereUpTo });
    expect(long.output).toMatchObject({ model: "gpt-4o", characters: tokenCountHereUpTo + 1 });
  });
});
