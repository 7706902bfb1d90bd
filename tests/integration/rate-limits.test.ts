import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    embeddedNodes: 0,
    env: { RATE_LIMIT_PER_MINUTE: "5", ACCOUNT_RATE_PER_MINUTE: "12" },
  });
});
afterAll(() => server.close());

describe("rate limits per key and per account, with RateLimit headers", () => {
  it("limits each key, and the account across all its keys and its session", async () => {
    const dev = await signUpDeveloper(server.baseUrl); // the profile creation: 1 account request
    const [first, second, third] = [await dev.createApiKey(), await dev.createApiKey(), await dev.createApiKey()]; // 4

    const ok = await dev.withKey(first, "/api/credits/balance");
    expect(ok.status).toBe(200);
    // The tightest limit is reported: the account's (7 of 12 left) before the key's (4 of 5).
    expect(ok.headers.get("ratelimit-limit")).toBe("12");
    expect(ok.headers.get("ratelimit-remaining")).toBe("7");
    expect(Number(ok.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) expect((await dev.withKey(first, "/api/credits/balance")).status).toBe(200); // account: 9

    const byKey = await dev.withKey(first, "/api/credits/balance");
    expect(byKey.status).toBe(429);
    expect(byKey.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(byKey.headers.get("ratelimit-limit")).toBe("5");
    expect(byKey.headers.get("ratelimit-remaining")).toBe("0");
    expect((await byKey.json()).error.code).toBe("RATE_LIMITED");

    // Another key of the same account has its own 5, but the account has only 3 left.
    for (let i = 0; i < 3; i++) expect((await dev.withKey(second, "/api/credits/balance")).status).toBe(200);
    const byAccount = await dev.withKey(second, "/api/credits/balance");
    expect(byAccount.status).toBe(429);
    expect(byAccount.headers.get("ratelimit-limit")).toBe("12");
    expect((await dev.withKey(third, "/api/credits/balance")).status).toBe(429);
    expect((await dev.session("/api/credits/balance")).status).toBe(429);

    // Another account is not affected.
    const other = await signUpDeveloper(server.baseUrl);
    expect((await other.withKey(await other.createApiKey(), "/api/credits/balance")).status).toBe(200);
  });
});
