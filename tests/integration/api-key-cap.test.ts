import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import { signUpDeveloper } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server.close());

describe("API keys per account are capped", () => {
  it(`refuses key number ${limits.apiKeysPerAccount + 1} with 409 LIMIT_REACHED, even asked for concurrently; revoking one frees a place`, async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const create = () =>
      dev.session("/api/developers/keys", {
        method: "POST",
        body: JSON.stringify({ name: "k", scopes: ["jobs:read"] }),
      });
    const statuses = await Promise.all(
      Array.from({ length: limits.apiKeysPerAccount + 5 }, () => create().then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 201).length).toBe(limits.apiKeysPerAccount);
    const refused = await create();
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({
      code: "LIMIT_REACHED",
      details: { limit: limits.apiKeysPerAccount },
    });

    const keys = (await (await dev.session("/api/developers/keys")).json()) as { keyId: string }[];
    expect((await dev.session(`/api/developers/keys/${keys[0].keyId}`, { method: "DELETE" })).status).toBe(200);
    expect((await create()).status).toBe(201);
  });
});
