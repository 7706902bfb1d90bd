// Timeouts and aborts: a slow server costs at most timeoutMs per attempt; the caller's abort ends a
// call at once — in flight, mid-backoff or mid-wait — and is never confused with a timeout.
import { afterEach, describe, expect, it } from "vitest";
import {
  ExecutionAbortError,
  ExecutionClient,
  ExecutionNetworkError,
  ExecutionTimeoutError,
  type FetchLike,
} from "@/lib/client/src/index";
import { envelope, jobFixture, startFakeApi, type FakeApi } from "./fake-api";

let api: FakeApi;
afterEach(() => api?.close());

const clientFor = (options: { timeoutMs?: number; maxRetries?: number; fetch?: FetchLike } = {}) =>
  new ExecutionClient({ apiKey: "dev_test", baseUrl: api?.baseUrl ?? "http://127.0.0.1:9", ...options });

/** Runs `promise` and reports how it settled and how long it took. */
async function settle(promise: Promise<unknown>): Promise<{ error: unknown; ms: number; settledAt: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  const settledAt = performance.now();
  return { error, ms: settledAt - started, settledAt };
}

/** When `controller` aborts: "at once" is measured from here, whatever the machine's load. */
function abortTime(controller: AbortController): () => number {
  let at = Number.NaN;
  controller.signal.addEventListener("abort", () => (at = performance.now()));
  return () => at;
}

/** Within this long of the abort counts as "at once" (the waits it cuts short are 10–30 s). */
const promptlyMs = 500;

describe("timeouts", () => {
  it("a response slower than timeoutMs fails the attempt; retries also time out; then ExecutionTimeoutError", async () => {
    // 1 s per attempt: long enough for the retry's request to reach the server on a loaded CI machine.
    api = await startFakeApi(() => ({ status: 200, body: [], delayMs: 5_000 }));
    const { error } = await settle(clientFor({ timeoutMs: 1_000, maxRetries: 1 }).listServices());
    expect(error).toBeInstanceOf(ExecutionTimeoutError);
    expect(error).toBeInstanceOf(ExecutionNetworkError);
    expect(error).toMatchObject({ timeoutMs: 1_000 });
    expect(api.requests).toHaveLength(2);
  });

  it("a slow first attempt is retried and the fast second one wins", async () => {
    api = await startFakeApi((_, n) => ({ status: 200, body: [], delayMs: n === 0 ? 5_000 : 0 }));
    await expect(clientFor({ timeoutMs: 1_000 }).listServices()).resolves.toEqual([]);
    expect(api.requests).toHaveLength(2);
  });

  it("a per-call timeoutMs overrides the client's", async () => {
    api = await startFakeApi(() => ({ status: 200, body: [], delayMs: 300 }));
    const client = clientFor({ timeoutMs: 100, maxRetries: 0 });
    await expect(client.listServices()).rejects.toBeInstanceOf(ExecutionTimeoutError);
    await expect(client.listServices({ timeoutMs: 5_000 })).resolves.toEqual([]);
  });

  it("times out even when a custom fetch ignores its signal", async () => {
    const neverAnswers: FetchLike = () => new Promise(() => undefined);
    const { error } = await settle(clientFor({ fetch: neverAnswers, timeoutMs: 100, maxRetries: 0 }).listServices());
    expect(error).toBeInstanceOf(ExecutionTimeoutError);
  });
});

describe("aborts", () => {
  it("an abort during the Retry-After wait rejects at once with ExecutionAbortError, not after 30 s", async () => {
    const controller = new AbortController();
    api = await startFakeApi(() => {
      setTimeout(() => controller.abort(new Error("user left")), 100);
      return { ...envelope("RATE_LIMITED", 429), headers: { "retry-after": "30" } };
    });
    const abortedAt = abortTime(controller);
    const { error, settledAt } = await settle(clientFor().listServices({ signal: controller.signal }));
    expect(error).toBeInstanceOf(ExecutionAbortError);
    expect((error as ExecutionAbortError).cause).toEqual(new Error("user left"));
    expect(api.requests).toHaveLength(1);
    expect(settledAt - abortedAt()).toBeLessThan(promptlyMs);
  });

  it("an abort while the request is in flight is an abort, not a timeout, and is not retried", async () => {
    const controller = new AbortController();
    api = await startFakeApi(() => {
      setTimeout(() => controller.abort(), 100);
      return { status: 200, body: [], delayMs: 10_000 };
    });
    const abortedAt = abortTime(controller);
    const { error, settledAt } = await settle(clientFor().listServices({ signal: controller.signal }));
    expect(error).toBeInstanceOf(ExecutionAbortError);
    expect(error).not.toBeInstanceOf(ExecutionTimeoutError);
    expect(api.requests).toHaveLength(1);
    expect(settledAt - abortedAt()).toBeLessThan(promptlyMs);
  });

  it("a POST aborted mid-backoff is not sent again", async () => {
    const controller = new AbortController();
    api = await startFakeApi(() => {
      setTimeout(() => controller.abort(), 50);
      return { status: 503, headers: { "retry-after": "30" } };
    });
    const abortedAt = abortTime(controller);
    const { error, settledAt } = await settle(
      clientFor().execute("token-count", { text: "x" }, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(ExecutionAbortError);
    expect(settledAt - abortedAt()).toBeLessThan(promptlyMs);
    expect(api.requests).toHaveLength(1);
  });

  it("an already-aborted signal sends nothing", async () => {
    api = await startFakeApi(() => ({ status: 200, body: [] }));
    await expect(clientFor().listServices({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ExecutionAbortError);
    expect(api.requests).toHaveLength(0);
  });

  it("aborts even when a custom fetch ignores its signal", async () => {
    const neverAnswers: FetchLike = () => new Promise(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const abortedAt = abortTime(controller);
    const { error, settledAt } = await settle(
      clientFor({ fetch: neverAnswers }).listServices({ signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(ExecutionAbortError);
    expect(settledAt - abortedAt()).toBeLessThan(promptlyMs);
  });

  it("an abort ends waitForJob between polls at once", async () => {
    const controller = new AbortController();
    api = await startFakeApi(() => {
      setTimeout(() => controller.abort(), 100);
      return { status: 200, body: jobFixture({ status: "running" }) };
    });
    const abortedAt = abortTime(controller);
    const { error, settledAt } = await settle(
      clientFor().waitForJob("job_1", { intervalMs: 30_000, signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(ExecutionAbortError);
    expect(api.requests).toHaveLength(1);
    expect(settledAt - abortedAt()).toBeLessThan(promptlyMs);
  });
});
