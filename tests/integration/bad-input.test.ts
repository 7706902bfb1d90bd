import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let dev: Developer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
});
afterAll(() => server.close());

async function expectEnvelope(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
}

const executeRaw = (body: string, contentType = "application/json") =>
  fetch(`${server.baseUrl}/api/marketplace/services/token-count/execute`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": contentType },
    body,
  });

describe("bad input is a 4xx in the envelope, never a 500", () => {
  const deep = `{"input":${"[".repeat(5_000)}${"]".repeat(5_000)}}`;

  it("JSON nested 5,000 deep → 400, on an API-key route and on the unauthenticated sign-in", async () => {
    await expectEnvelope(await executeRaw(deep), 400, "INVALID_REQUEST");
    const verify = await fetch(`${server.baseUrl}/api/auth/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.baseUrl },
      body: `{"message":${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
    });
    await expectEnvelope(verify, 400, "INVALID_REQUEST");
  });

  it("a lone UTF-16 surrogate in an input, a key or a query → 400", async () => {
    await expectEnvelope(await executeRaw(String.raw`{"input":{"text":"\ud800"}}`), 400, "INVALID_REQUEST");
    await expectEnvelope(await executeRaw(String.raw`{"input":{"\udfff":"x"}}`), 400, "INVALID_REQUEST");
    // A query decodes invalid UTF-8 to U+FFFD, never to a lone surrogate: an ordinary (empty) answer.
    expect((await dev.withKey(key, "/api/developers/jobs?serviceId=%ED%A0%80")).status).toBe(200);
    // A well-formed pair is ordinary text.
    expect((await executeRaw(String.raw`{"input":{"text":"\ud83d\ude00 fine"}}`)).status).toBe(202);
  });

  it("a body declared in another charset than UTF-8 → 415; UTF-8 declared is fine", async () => {
    const body = JSON.stringify({ input: { text: "hello" } });
    await expectEnvelope(await executeRaw(body, "application/json; charset=utf-16"), 415, "UNSUPPORTED_MEDIA_TYPE");
    await expectEnvelope(await executeRaw(body, "application/json; charset=iso-8859-1"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expect((await executeRaw(body, "application/json; charset=UTF-8")).status).toBe(202);
  });
});
