// Error mapping: every failure is an ExecutionNetworkError; API errors carry the envelope's code,
// message and request id, the Retry-After, and the parsed body.
import { afterEach, describe, expect, it } from "vitest";
import {
  ExecutionAbortError,
  ExecutionApiError,
  ExecutionClient,
  ExecutionConnectionError,
  ExecutionNetworkError,
  ExecutionTimeoutError,
  JobWaitTimeoutError,
  KeyCreditLimitError,
  isApiError,
  type ExecutionErrorCode,
} from "@/lib/client/src/index";
import { envelope, startFakeApi, type FakeApi } from "./fake-api";

let api: FakeApi;
afterEach(() => api?.close());

const clientFor = () => new ExecutionClient({ apiKey: "dev_test", baseUrl: api.baseUrl, maxRetries: 0 });

describe("error mapping", () => {
  it("an error envelope becomes an ExecutionApiError with status, code, message, requestId, details and body", async () => {
    const details = { issues: [{ path: "text", message: "Required" }] };
    api = await startFakeApi(() => envelope("INVALID_SERVICE_INPUT", 422, { details }));
    const error = await clientFor()
      .execute("token-count", {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionApiError);
    expect(error).toBeInstanceOf(ExecutionNetworkError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: "ExecutionApiError",
      status: 422,
      code: "INVALID_SERVICE_INPUT",
      message: "INVALID_SERVICE_INPUT happened.",
      requestId: "req_invalid_service_input",
      retryAfterSeconds: null,
      details,
      response: { error: { code: "INVALID_SERVICE_INPUT", details } },
    });
  });

  it("402 KEY_CREDIT_LIMIT is a KeyCreditLimitError with the limit's details, and is not retried", async () => {
    const details = {
      creditLimit: 50,
      creditLimitRemaining: 2,
      creditLimitReset: "weekly",
      resetsAt: "2030-06-10T00:00:00.000Z",
    };
    api = await startFakeApi(() => envelope("KEY_CREDIT_LIMIT", 402, { details }));
    const client = new ExecutionClient({ apiKey: "dev_test", baseUrl: api.baseUrl, maxRetries: 3 });
    const error = await client.execute("token-count", { text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyCreditLimitError);
    expect(error).toBeInstanceOf(ExecutionApiError);
    expect(error).toMatchObject({
      name: "KeyCreditLimitError",
      status: 402,
      code: "KEY_CREDIT_LIMIT",
      details,
      ...details,
    });
    expect(isApiError(error, "KEY_CREDIT_LIMIT")).toBe(true);
    expect(api.requests).toHaveLength(1);
  });

  it("402 INSUFFICIENT_CREDITS stays a plain ExecutionApiError", async () => {
    api = await startFakeApi(() => envelope("INSUFFICIENT_CREDITS", 402, { details: { required: 1 } }));
    const error = await clientFor()
      .execute("token-count", { text: "x" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExecutionApiError);
    expect(error).not.toBeInstanceOf(KeyCreditLimitError);
  });

  it("Retry-After becomes retryAfterSeconds", async () => {
    api = await startFakeApi(() => ({ ...envelope("RATE_LIMITED", 429), headers: { "retry-after": "120" } }));
    await expect(clientFor().listServices()).rejects.toMatchObject({
      status: 429,
      code: "RATE_LIMITED",
      retryAfterSeconds: 120,
    });
  });

  it("a body without the envelope (a proxy's page) keeps the status, the text and the x-request-id header", async () => {
    api = await startFakeApi(() => ({
      status: 418,
      headers: { "content-type": "text/html", "x-request-id": "edge-1" },
      body: "<h1>teapot</h1>",
    }));
    await expect(clientFor().listServices()).rejects.toMatchObject({
      status: 418,
      code: "UNKNOWN_ERROR",
      message: "HTTP 418 I'm a Teapot",
      requestId: "edge-1",
      response: "<h1>teapot</h1>",
    });
  });

  it("a 2xx body that is not JSON is an INVALID_RESPONSE error, not a crash", async () => {
    api = await startFakeApi(() => ({ status: 200, body: "not json" }));
    await expect(clientFor().listServices()).rejects.toMatchObject({
      status: 200,
      code: "INVALID_RESPONSE",
      response: "not json",
    });
  });

  it("isApiError narrows to one code", async () => {
    api = await startFakeApi(() => envelope("INSUFFICIENT_CREDITS", 402));
    const error = await clientFor()
      .execute("token-count", { text: "x" })
      .catch((e: unknown) => e);
    expect(isApiError(error)).toBe(true);
    expect(isApiError(error, "INSUFFICIENT_CREDITS")).toBe(true);
    expect(isApiError(error, "SERVICE_NOT_FOUND")).toBe(false);
    expect(isApiError(new Error("other"))).toBe(false);
  });

  it("unknown codes from a newer server are kept as strings", async () => {
    api = await startFakeApi(() => envelope("QUOTA_FROZEN", 403));
    const error = await clientFor()
      .listServices()
      .catch((e: unknown) => e);
    const code: ExecutionErrorCode | undefined = error instanceof ExecutionApiError ? error.code : undefined;
    expect(code).toBe("QUOTA_FROZEN");
  });

  it("every error class shares the base class and has a stable name", () => {
    const errors = [
      new ExecutionTimeoutError(10),
      new ExecutionAbortError(),
      new ExecutionConnectionError(),
      new JobWaitTimeoutError("job_1", 10, null),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(ExecutionNetworkError);
    expect(errors.map((e) => e.name)).toEqual([
      "ExecutionTimeoutError",
      "ExecutionAbortError",
      "ExecutionConnectionError",
      "JobWaitTimeoutError",
    ]);
  });

  it("argument mistakes are ExecutionNetworkErrors too, thrown before anything is sent", async () => {
    api = await startFakeApi(() => ({ status: 200, body: {} }));
    const client = clientFor();
    expect(() => client.getJob("")).toThrow(ExecutionNetworkError);
    expect(() => client.listJobs({ dateFrom: "yesterday" })).toThrow(ExecutionNetworkError);
    expect(api.requests).toHaveLength(0);
  });
});
