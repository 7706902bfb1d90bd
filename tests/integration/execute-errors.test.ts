import { describe, expect, it } from "vitest";
import { execute } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";
import { expectError } from "../support/expect-error";

const ctx = withDeveloper({ embeddedNodes: 0, env: { STARTER_CREDITS: "3" } });

/** A valid 1×1 PNG: image-ocr's input passes its checks, so the balance is what refuses it. */
const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("execute refuses, in the contract's order", () => {
  it("401 INVALID_API_KEY without a key, or with an unknown one", async () => {
    const anon = await fetch(`${ctx.server.baseUrl}/api/marketplace/services/token-count/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "x" } }),
    });
    await expectError(anon, 401, "INVALID_API_KEY");
    await expectError(
      await execute(ctx.dev, "dev_" + "x".repeat(43), "token-count", { text: "x" }),
      401,
      "INVALID_API_KEY",
    );
  });

  it("403 INSUFFICIENT_SCOPE naming the required scope, before looking at the body", async () => {
    const readOnly = await ctx.dev.createApiKey(["jobs:read"]);
    const res = await ctx.dev.withKey(readOnly, "/api/marketplace/services/nope/execute", {
      method: "POST",
      body: "{broken",
    });
    const error = await expectError(res, 403, "INSUFFICIENT_SCOPE");
    expect(error.details).toEqual({ requiredScope: "services:execute" });
  });

  it("400 INVALID_REQUEST for malformed JSON, extra members, or a missing input", async () => {
    for (const body of [
      "{broken",
      JSON.stringify({ input: { text: "x" }, extra: 1 }),
      JSON.stringify({}),
      JSON.stringify({ input: "text" }),
    ]) {
      const res = await ctx.dev.withKey(ctx.key, "/api/marketplace/services/token-count/execute", {
        method: "POST",
        body,
      });
      await expectError(res, 400, "INVALID_REQUEST");
    }
  });

  it("400 INVALID_REQUEST for a bad Idempotency-Key", async () => {
    await expectError(
      await execute(ctx.dev, ctx.key, "token-count", { text: "x" }, { "idempotency-key": "k".repeat(256) }),
      400,
      "INVALID_REQUEST",
    );
  });

  it("415 for a body that is not JSON", async () => {
    const res = await fetch(`${ctx.server.baseUrl}/api/marketplace/services/token-count/execute`, {
      method: "POST",
      headers: { "x-api-key": ctx.key, "content-type": "text/plain" },
      body: "input",
    });
    await expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("413 for a body over 1 MiB", async () => {
    const res = await execute(ctx.dev, ctx.key, "token-count", { text: "a".repeat(1024 * 1024 + 10) });
    await expectError(res, 413, "PAYLOAD_TOO_LARGE");
  });

  it("404 SERVICE_NOT_FOUND and 409 SERVICE_DISABLED", async () => {
    await expectError(await execute(ctx.dev, ctx.key, "no-such-service", { text: "x" }), 404, "SERVICE_NOT_FOUND");
    await expectError(await execute(ctx.dev, ctx.key, "text-generate", { prompt: "hi" }), 409, "SERVICE_DISABLED");
  });

  it("422 INVALID_SERVICE_INPUT with the issues", async () => {
    const error = await expectError(
      await execute(ctx.dev, ctx.key, "text-summarize", { text: "", sentences: 99 }),
      422,
      "INVALID_SERVICE_INPUT",
    );
    expect(error.details?.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "text" }),
        expect.objectContaining({ path: "sentences" }),
      ]),
    );
  });

  it("402 INSUFFICIENT_CREDITS when the balance cannot pay, leaving the balance untouched", async () => {
    // image-ocr costs 5; the starter balance here is 3.
    await expectError(
      await execute(ctx.dev, ctx.key, "image-ocr", { image: onePixelPng }),
      402,
      "INSUFFICIENT_CREDITS",
    );
    const balance = await (await ctx.dev.withKey(ctx.key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(3);
  });

  it("the developer_job route behaves like execute and rejects another type", async () => {
    const ok = await ctx.dev.withKey(ctx.key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({ type: "developer_job", payload: { serviceId: "token-count", input: { text: "hi" } } }),
    });
    expect(ok.status).toBe(202);
    expect((await ok.json()).serviceId).toBe("token-count");
    const wrongType = await ctx.dev.withKey(ctx.key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({ type: "other_job", payload: { serviceId: "token-count", input: { text: "hi" } } }),
    });
    await expectError(wrongType, 400, "INVALID_REQUEST");
    const missing = await ctx.dev.withKey(ctx.key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({ type: "developer_job", payload: { serviceId: "nope", input: {} } }),
    });
    await expectError(missing, 404, "SERVICE_NOT_FOUND");
  });

  it("unknown paths under /api are 404 NOT_FOUND in the envelope", async () => {
    await expectError(await fetch(`${ctx.server.baseUrl}/api/nope/nothing`), 404, "NOT_FOUND");
  });

  it("echoes a well-formed x-request-id and replaces a malformed one", async () => {
    const echoed = await fetch(`${ctx.server.baseUrl}/api/marketplace/services`, {
      headers: { "x-request-id": "abc.DEF-123_x" },
    });
    expect(echoed.headers.get("x-request-id")).toBe("abc.DEF-123_x");
    const replaced = await fetch(`${ctx.server.baseUrl}/api/marketplace/services`, {
      headers: { "x-request-id": "bad id!" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
