// Retries: only what is safe (429, 502, 503, 504, network errors), POSTs only with their idempotency
// key, the same key on every attempt, honouring Retry-After.
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionApiError, ExecutionClient, ExecutionConnectionError } from "@/lib/client/src/index";
import { envelope, jobFixture, startFakeApi, type FakeApi, type Reply } from "./fake-api";

const services = [
  { serviceId: "token-count", name: "Token count", description: "", creditCost: 1, status: "active", inputSchema: {} },
];
const ok: Reply = { status: 200, body: services };
const accepted: Reply = { status: 202, body: jobFixture() };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let api: FakeApi;
afterEach(() => api?.close());

const clientFor = (options: { maxRetries?: number } = {}) =>
  new ExecutionClient({ apiKey: "dev_test", baseUrl: api.baseUrl, ...options });

describe("retries", () => {
  it.each([429, 502, 503, 504])("retries HTTP %i and returns the first success", async (status) => {
    api = await startFakeApi((_, n) =>
      n < 2
        ? { status, headers: { "retry-after": "0" }, body: { error: { code: "X", message: "x", requestId: "r" } } }
        : ok,
    );
    await expect(clientFor().listServices()).resolves.toEqual(services);
    expect(api.requests).toHaveLength(3);
  });

  it("gives up after maxRetries and throws the last error", async () => {
    api = await startFakeApi(() => ({ ...envelope("UNAVAILABLE", 503), headers: { "retry-after": "0" } }));
    const error = await clientFor()
      .listServices()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionApiError);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE", retryAfterSeconds: 0 });
    expect(api.requests).toHaveLength(3); // 1 + maxRetries (2)
  });

  it("retries dropped connections, then reports a connection error", async () => {
    api = await startFakeApi((_, n) => (n < 2 ? { drop: true } : ok));
    await expect(clientFor().listServices()).resolves.toEqual(services);
    expect(api.requests).toHaveLength(3);

    await api.close();
    api = await startFakeApi(() => ({ drop: true }));
    await expect(clientFor({ maxRetries: 1 }).listServices()).rejects.toBeInstanceOf(ExecutionConnectionError);
    expect(api.requests).toHaveLength(2);
  });

  it.each([
    ["INVALID_REQUEST", 400],
    ["INVALID_API_KEY", 401],
    ["INSUFFICIENT_SCOPE", 403],
    ["JOB_NOT_FOUND", 404],
    ["IDEMPOTENCY_CONFLICT", 409],
    ["INVALID_SERVICE_INPUT", 422],
    ["INTERNAL_ERROR", 500],
  ])("never retries %s (%i)", async (code, status) => {
    api = await startFakeApi(() => envelope(code, status));
    await expect(clientFor().getJob("job_1")).rejects.toMatchObject({ status, code });
    await expect(clientFor().execute("token-count", { text: "hi" })).rejects.toMatchObject({ status, code });
    expect(api.requests).toHaveLength(2);
  });

  it("a POST carries a generated Idempotency-Key and sends the same one on every retry", async () => {
    api = await startFakeApi((_, n) => (n < 2 ? { status: 502, headers: { "retry-after": "0" } } : accepted));
    const job = await clientFor().execute("token-count", { text: "hello" });
    expect(job.jobId).toBe("job_1");
    const keys = api.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(uuid);
    expect(new Set(keys).size).toBe(1);
    expect(api.requests.every((r) => r.body === JSON.stringify({ input: { text: "hello" } }))).toBe(true);
  });

  it("a new call is a new intent: it gets a new key", async () => {
    api = await startFakeApi(() => accepted);
    const client = clientFor();
    await client.execute("token-count", { text: "a" });
    await client.createJob({ type: "developer_job", payload: { serviceId: "token-count", input: { text: "a" } } });
    const [first, second] = api.requests.map((r) => r.headers["idempotency-key"]);
    expect(first).toMatch(uuid);
    expect(second).toMatch(uuid);
    expect(first).not.toBe(second);
  });

  it("a transport-interrupted POST is retried with the caller's own key", async () => {
    api = await startFakeApi((_, n) => (n === 0 ? { drop: true } : accepted));
    await clientFor().createJob(
      { type: "developer_job", payload: { serviceId: "token-count", input: { text: "a" } } },
      { idempotencyKey: "order-42" },
    );
    expect(api.requests.map((r) => r.headers["idempotency-key"])).toEqual(["order-42", "order-42"]);
  });

  it("GET requests carry no Idempotency-Key", async () => {
    api = await startFakeApi(() => ok);
    await clientFor().listServices();
    expect(api.requests[0]?.headers["idempotency-key"]).toBeUndefined();
  });

  it("waits the Retry-After seconds before the next attempt", async () => {
    api = await startFakeApi((_, n) =>
      n === 0 ? { ...envelope("RATE_LIMITED", 429), headers: { "retry-after": "1" } } : ok,
    );
    await clientFor().listServices();
    const [first, second] = api.requests;
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it("without Retry-After it backs off exponentially (with jitter)", async () => {
    api = await startFakeApi((_, n) => (n < 2 ? { status: 502, body: "Bad gateway" } : ok));
    await clientFor().listServices();
    const [a, b, c] = api.requests.map((r) => r.at);
    // Jitter keeps each delay within [ceiling / 2, ceiling]; ceilings are 500 ms, then 1000 ms.
    expect(b - a).toBeGreaterThanOrEqual(240);
    expect(c - b).toBeGreaterThanOrEqual(490);
  });

  it("does not wait out a Retry-After longer than a minute: the caller decides", async () => {
    api = await startFakeApi(() => ({ ...envelope("RATE_LIMITED", 429), headers: { "retry-after": "120" } }));
    await expect(clientFor().listServices()).rejects.toMatchObject({ code: "RATE_LIMITED", retryAfterSeconds: 120 });
    expect(api.requests).toHaveLength(1);
  });

  it("maxRetries can be lowered per call", async () => {
    api = await startFakeApi(() => ({ status: 503, headers: { "retry-after": "0" } }));
    await expect(clientFor().listServices({ maxRetries: 0 })).rejects.toMatchObject({
      status: 503,
      code: "UNKNOWN_ERROR",
    });
    expect(api.requests).toHaveLength(1);
  });
});
