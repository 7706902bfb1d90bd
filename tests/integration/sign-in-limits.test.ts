import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestNonce, signIn } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0, env: { SIGN_IN_RATE_PER_MINUTE: "8" } });
});
afterAll(() => server.close());

async function nonceRows(): Promise<Set<string>> {
  const { db } = await import("@/lib/domain/database");
  const { authNonces } = await import("@/lib/db/schema");
  const rows = await (await db()).select({ nonce: authNonces.nonce }).from(authNonces);
  return new Set(rows.map((r) => r.nonce));
}

describe("sign-in cannot be used without bound", () => {
  it("the sweeper's purge drops used and expired nonces and keeps fresh ones", async () => {
    const { db } = await import("@/lib/domain/database");
    const { purgeSpentNonces } = await import("@/lib/domain/sign-in");
    await signIn(server.baseUrl); // one used nonce
    const stale = await requestNonce(server.baseUrl);
    const fresh = await requestNonce(server.baseUrl);
    await (
      await db()
    ).execute(sql`update auth_nonces set created_at = now() - interval '11 minutes' where nonce = ${stale.nonce}`);
    await purgeSpentNonces();
    expect([...(await nonceRows())]).toEqual([fresh.nonce]);
  });

  it("limits sign-in requests per client IP: 429 with Retry-After past the limit, whatever X-Forwarded-For says", async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 12; i++) {
      // A client cannot pose as many clients by inventing forwarded addresses (TRUST_PROXY is off).
      const res = await fetch(`${server.baseUrl}/api/auth/nonce`, { headers: { "x-forwarded-for": `10.0.0.${i}` } });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(limited?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await limited?.json()).error.code).toBe("RATE_LIMITED");
  });
});
