import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allScopes, signUpDeveloper, type Developer } from "../support/developer";
import { eventually, submit } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { expectError } from "../support/expect-error";
import { usePostgres } from "../support/postgres";

let server: TestServer;
let dev: Developer;
beforeAll(async () => {
  // No execution node: jobs stay queued, which is all the scope checks need.
  server = await startTestServer({ embeddedNodes: 0 });
  dev = await signUpDeveloper(server.baseUrl);
});
afterAll(() => server.close());

interface ApiKeyView {
  keyId: string;
  name: string;
  scopes: string[];
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  kind: "standard" | "dashboard";
  creditLimit: number | null;
  creditLimitReset: "daily" | "weekly" | "monthly" | null;
  creditLimitRemaining: number | null;
  usage: { daily: number; weekly: number; monthly: number; total: number };
  key?: string;
}

async function createKey(owner: Developer, body: Record<string, unknown> = {}): Promise<ApiKeyView & { key: string }> {
  const res = await owner.session("/api/developers/keys", {
    method: "POST",
    body: JSON.stringify({ name: "key", scopes: allScopes, ...body }),
  });
  expect(res.status).toBe(201);
  return res.json();
}

async function listKeys(owner: Developer): Promise<ApiKeyView[]> {
  const res = await owner.session("/api/developers/keys");
  expect(res.status).toBe(200);
  return res.json();
}

const revoke = (owner: Developer, keyId: string) =>
  owner.session(`/api/developers/keys/${keyId}`, { method: "DELETE" });
const rotate = (owner: Developer, keyId: string, body?: unknown) =>
  owner.session(`/api/developers/keys/${keyId}/rotate`, {
    method: "POST",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A cheap read that any key with credits:read may make; 200 when the key is live. */
const useKey = (key: string) => dev.withKey(key, "/api/credits/balance");

describe("creating a key", () => {
  it("returns 201 with the secret once, its prefix being the 8 characters after dev_", async () => {
    const res = await dev.session("/api/developers/keys", {
      method: "POST",
      body: JSON.stringify({ name: "ci deploy", scopes: ["jobs:read", "services:execute"] }),
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as ApiKeyView & { key: string };
    expect(created.key).toMatch(/^dev_[0-9A-Za-z]{32,}$/);
    expect(created).toEqual({
      keyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "ci deploy",
      scopes: ["jobs:read", "services:execute"],
      prefix: created.key.slice(4, 12),
      createdAt: expect.any(String),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
      kind: "standard",
      creditLimit: null,
      creditLimitReset: null,
      creditLimitRemaining: null,
      usage: { daily: 0, weekly: 0, monthly: 0, total: 0 },
      key: created.key,
    });
    expect(created.prefix).toHaveLength(8);
  });

  it("gives every key a different secret", async () => {
    const a = await createKey(dev);
    const b = await createKey(dev);
    expect(a.key).not.toBe(b.key);
    expect(a.keyId).not.toBe(b.keyId);
  });

  it("needs a profile first (404 PROFILE_NOT_FOUND)", async () => {
    const newcomer = await signUpDeveloper(server.baseUrl, { profile: false });
    const res = await newcomer.session("/api/developers/keys", {
      method: "POST",
      body: JSON.stringify({ name: "k", scopes: ["jobs:read"] }),
    });
    await expectError(res, 404, "PROFILE_NOT_FOUND");
  });

  it.each<[string, Record<string, unknown>]>([
    ["an unknown scope", { name: "k", scopes: ["admin"] }],
    ["a known scope next to an unknown one", { name: "k", scopes: ["jobs:read", "jobs:write"] }],
    ["no scopes", { name: "k", scopes: [] }],
    ["a missing scopes member", { name: "k" }],
    ["an empty name", { name: "", scopes: ["jobs:read"] }],
    ["a name over 80 characters", { name: "k".repeat(81), scopes: ["jobs:read"] }],
    ["an expiresAt that is not an ISO time", { name: "k", scopes: ["jobs:read"], expiresAt: "tomorrow" }],
    ["an extra member", { name: "k", scopes: ["jobs:read"], admin: true }],
    ["a name containing a NUL character", { name: "k\u0000", scopes: ["jobs:read"] }],
    [
      "an expiresAt the database cannot store (year 0)",
      { name: "k", scopes: ["jobs:read"], expiresAt: "0000-01-01T00:00:00Z" },
    ],
  ])("refuses %s with 400 INVALID_REQUEST", async (_, body) => {
    const before = await listKeys(dev);
    await expectError(
      await dev.session("/api/developers/keys", { method: "POST", body: JSON.stringify(body) }),
      400,
      "INVALID_REQUEST",
    );
    expect(await listKeys(dev)).toHaveLength(before.length);
  });

  it("refuses a cookie-authenticated create without the app's Origin (403 FORBIDDEN_ORIGIN)", async () => {
    const res = await fetch(`${server.baseUrl}/api/developers/keys`, {
      method: "POST",
      headers: { cookie: dev.cookie, "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ name: "k", scopes: ["jobs:read"] }),
    });
    await expectError(res, 403, "FORBIDDEN_ORIGIN");
  });

  it("cannot be done with an API key (401 UNAUTHENTICATED)", async () => {
    const key = await dev.createApiKey();
    await expectError(await dev.withKey(key, "/api/developers/keys"), 401, "UNAUTHENTICATED");
    const create = await dev.withKey(key, "/api/developers/keys", {
      method: "POST",
      body: JSON.stringify({ name: "k", scopes: ["jobs:read"] }),
      headers: { origin: server.baseUrl },
    });
    await expectError(create, 401, "UNAUTHENTICATED");
  });
});

describe("listing keys", () => {
  it("lists the developer's keys newest first and never shows a secret", async () => {
    const owner = await signUpDeveloper(server.baseUrl);
    const first = await createKey(owner, { name: "first" });
    const second = await createKey(owner, { name: "second" });
    const third = await createKey(owner, { name: "third" });

    const res = await owner.session("/api/developers/keys");
    const text = await res.text();
    const keys = JSON.parse(text) as ApiKeyView[];
    expect(keys.map((k) => k.name)).toEqual(["third", "second", "first"]);
    expect(keys.map((k) => k.keyId)).toEqual([third.keyId, second.keyId, first.keyId]);
    for (const k of keys) expect(k).not.toHaveProperty("key");
    for (const secret of [first.key, second.key, third.key]) expect(text).not.toContain(secret);
    expect(keys[0]).toEqual({ ...third, key: undefined });
  });

  it("needs a profile first (404 PROFILE_NOT_FOUND)", async () => {
    const newcomer = await signUpDeveloper(server.baseUrl, { profile: false });
    await expectError(await newcomer.session("/api/developers/keys"), 404, "PROFILE_NOT_FOUND");
  });

  it("shows lastUsedAt as null until the key is first used, then as the time of use", async () => {
    const created = await createKey(dev, { name: "fresh" });
    const unused = (await listKeys(dev)).find((k) => k.keyId === created.keyId);
    expect(unused?.lastUsedAt).toBeNull();

    expect((await useKey(created.key)).status).toBe(200);
    const used = (await listKeys(dev)).find((k) => k.keyId === created.keyId);
    expect(used?.lastUsedAt).toEqual(expect.any(String));
    expect(Date.parse(used?.lastUsedAt ?? "")).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
  });

  // Another connection holding the key's row is PostgreSQL's; PGlite runs one statement at a time anyway.
  it.skipIf(!usePostgres())(
    "does not keep a request waiting while a charge holds the key's row, and records the use once it is free",
    async () => {
      const created = await createKey(dev, { name: "charged" });
      const charge = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await charge.connect();
      try {
        // As a submission's write holds it while it moves the key's spend counters.
        await charge.query("begin");
        await charge.query("select 1 from api_keys where id = $1 for update", [created.keyId]);
        const answer = await Promise.race([
          useKey(created.key).then((r) => r.status),
          new Promise<string>((r) => setTimeout(() => r("still waiting after 5 s"), 5_000)),
        ]);
        expect(answer).toBe(200);
        await charge.query("commit");
      } finally {
        await charge.end();
      }
      expect((await listKeys(dev)).find((k) => k.keyId === created.keyId)?.lastUsedAt).toBeNull();

      // A second later, the next request records the use.
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await useKey(created.key)).status).toBe(200);
      const used = (await listKeys(dev)).find((k) => k.keyId === created.keyId);
      expect(used?.lastUsedAt).toEqual(expect.any(String));
    },
  );
});

describe("revoking a key", () => {
  it("returns 200 with revokedAt, kills the key at once, and keeps it listed", async () => {
    const created = await createKey(dev, { name: "to revoke" });
    expect((await useKey(created.key)).status).toBe(200);

    const res = await revoke(dev, created.keyId);
    expect(res.status).toBe(200);
    const revoked = (await res.json()) as ApiKeyView;
    expect(revoked).toMatchObject({ keyId: created.keyId, name: "to revoke", revokedAt: expect.any(String) });
    expect(revoked).not.toHaveProperty("key");

    await expectError(await useKey(created.key), 401, "INVALID_API_KEY");
    expect((await listKeys(dev)).find((k) => k.keyId === created.keyId)?.revokedAt).toBe(revoked.revokedAt);
  });

  it("is idempotent: revoking again answers 200 with the same revokedAt", async () => {
    const created = await createKey(dev);
    const first = (await (await revoke(dev, created.keyId)).json()) as ApiKeyView;
    const again = await revoke(dev, created.keyId);
    expect(again.status).toBe(200);
    expect(((await again.json()) as ApiKeyView).revokedAt).toBe(first.revokedAt);
  });

  it("answers 404 KEY_NOT_FOUND for an unknown or non-UUID keyId", async () => {
    await expectError(await revoke(dev, crypto.randomUUID()), 404, "KEY_NOT_FOUND");
    await expectError(await revoke(dev, "not-a-uuid"), 404, "KEY_NOT_FOUND");
  });

  it("refuses a cookie-authenticated revoke without the app's Origin, and the key keeps working", async () => {
    const created = await createKey(dev);
    const res = await fetch(`${server.baseUrl}/api/developers/keys/${created.keyId}`, {
      method: "DELETE",
      headers: { cookie: dev.cookie },
    });
    await expectError(res, 403, "FORBIDDEN_ORIGIN");
    expect((await useKey(created.key)).status).toBe(200);
  });
});

describe("rotating a key", () => {
  it("keeps its id, name and scopes, and kills the old secret at once", async () => {
    const created = await createKey(dev, { name: "rotating", scopes: ["credits:read", "jobs:read"] });
    const res = await rotate(dev, created.keyId);
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as ApiKeyView & { key: string };
    expect(rotated).toMatchObject({
      keyId: created.keyId,
      name: "rotating",
      scopes: ["credits:read", "jobs:read"],
      revokedAt: null,
    });
    expect(rotated.key).toMatch(/^dev_[0-9A-Za-z]{32,}$/);
    expect(rotated.key).not.toBe(created.key);
    expect(rotated.prefix).toBe(rotated.key.slice(4, 12));

    expect((await useKey(rotated.key)).status).toBe(200);
    await expectError(await useKey(created.key), 401, "INVALID_API_KEY");
  });

  it("accepts an explicit gracePeriodSeconds of 0 as 'no grace'", async () => {
    const created = await createKey(dev);
    const rotated = (await (await rotate(dev, created.keyId, { gracePeriodSeconds: 0 })).json()) as { key: string };
    await expectError(await useKey(created.key), 401, "INVALID_API_KEY");
    expect((await useKey(rotated.key)).status).toBe(200);
  });

  it("keeps the old secret working during the grace period, beside the new one", async () => {
    const created = await createKey(dev);
    const res = await rotate(dev, created.keyId, { gracePeriodSeconds: 600 });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as { key: string };
    expect((await useKey(created.key)).status).toBe(200);
    expect((await useKey(rotated.key)).status).toBe(200);
  });

  it("stops the old secret once the grace period is over", async () => {
    const created = await createKey(dev);
    const rotated = (await (await rotate(dev, created.keyId, { gracePeriodSeconds: 1 })).json()) as { key: string };
    await eventually(
      () => useKey(created.key).then((r) => r.status),
      (status) => status === 401,
      10_000,
    );
    expect((await useKey(rotated.key)).status).toBe(200);
  });

  it("ends the grace period when the key is revoked", async () => {
    const created = await createKey(dev);
    const rotated = (await (await rotate(dev, created.keyId, { gracePeriodSeconds: 600 })).json()) as { key: string };
    await revoke(dev, created.keyId);
    await expectError(await useKey(created.key), 401, "INVALID_API_KEY");
    await expectError(await useKey(rotated.key), 401, "INVALID_API_KEY");
  });

  it.each<[string, unknown]>([
    ["a negative grace period", { gracePeriodSeconds: -1 }],
    ["a grace period over 7 days", { gracePeriodSeconds: 604_801 }],
    ["a fractional grace period", { gracePeriodSeconds: 1.5 }],
    ["an extra member", { gracePeriodSeconds: 10, name: "renamed" }],
  ])("refuses %s with 400 INVALID_REQUEST, leaving the secret alive", async (_, body) => {
    const created = await createKey(dev);
    await expectError(await rotate(dev, created.keyId, body), 400, "INVALID_REQUEST");
    expect((await useKey(created.key)).status).toBe(200);
  });

  it("refuses to rotate a revoked key (409 KEY_REVOKED)", async () => {
    const created = await createKey(dev);
    await revoke(dev, created.keyId);
    await expectError(await rotate(dev, created.keyId), 409, "KEY_REVOKED");
    await expectError(await useKey(created.key), 401, "INVALID_API_KEY");
  });

  it("answers 404 KEY_NOT_FOUND for an unknown or non-UUID keyId", async () => {
    await expectError(await rotate(dev, crypto.randomUUID()), 404, "KEY_NOT_FOUND");
    await expectError(await rotate(dev, "12345"), 404, "KEY_NOT_FOUND");
  });
});

describe("expiring keys", () => {
  it("refuses a key whose expiresAt has passed with 401 INVALID_API_KEY", async () => {
    const expiry = Date.now() + 5_000;
    const expiresAt = new Date(expiry).toISOString();
    const created = await createKey(dev, { expiresAt });
    expect(created.expiresAt).toBe(expiresAt);
    expect((await useKey(created.key)).status).toBe(200);
    expect(Date.now()).toBeLessThan(expiry); // the 200 above was before the expiry

    // Once the expiry has passed (same clock as the server's), the very next use is refused.
    await new Promise((resolve) => setTimeout(resolve, expiry - Date.now() + 50));
    await expectError(await useKey(created.key), 401, "INVALID_API_KEY");
  });

  it("refuses an expiresAt outside 1970–9999 (e.g. year 0050) with 400 INVALID_REQUEST", async () => {
    for (const expiresAt of ["0050-06-15T00:00:00.000Z", "0000-01-01T00:00:00Z"]) {
      const res = await dev.session("/api/developers/keys", {
        method: "POST",
        body: JSON.stringify({ name: "antique", scopes: allScopes, expiresAt }),
      });
      await expectError(res, 400, "INVALID_REQUEST");
    }
  });

  it("accepts an expiresAt with a time-zone offset and reports it in UTC", async () => {
    const at = new Date(Date.now() + 3_600_000);
    const withOffset = at.toISOString().replace("Z", "+00:00");
    const created = await createKey(dev, { expiresAt: withOffset });
    expect(created.expiresAt).toBe(at.toISOString());
  });

  it("refuses an expiresAt in the past with 400 INVALID_REQUEST: a key is never born expired", async () => {
    const res = await dev.session("/api/developers/keys", {
      method: "POST",
      body: JSON.stringify({
        name: "already expired",
        scopes: allScopes,
        expiresAt: new Date(Date.now() - 60_000).toISOString(),
      }),
    });
    await expectError(res, 400, "INVALID_REQUEST");
  });
});

describe("keys belong to one developer", () => {
  it("another developer's revoke or rotate of my key is 404 KEY_NOT_FOUND and my key keeps working", async () => {
    const mine = await createKey(dev, { name: "mine" });
    const other = await signUpDeveloper(server.baseUrl);
    await expectError(await revoke(other, mine.keyId), 404, "KEY_NOT_FOUND");
    await expectError(await rotate(other, mine.keyId), 404, "KEY_NOT_FOUND");
    expect((await listKeys(other)).map((k) => k.keyId)).not.toContain(mine.keyId);

    expect((await useKey(mine.key)).status).toBe(200);
    expect((await listKeys(dev)).find((k) => k.keyId === mine.keyId)).toMatchObject({
      revokedAt: null,
      prefix: mine.prefix,
    });
  });
});

describe("scopes are enforced on every API-key route", () => {
  let jobId: string;
  beforeAll(async () => {
    jobId = (await submit(dev, await dev.createApiKey(), "token-count", { text: "scoped" })).jobId;
  });

  type Route = [name: string, scope: string, ok: number, request: () => [string, RequestInit]];
  const routes: Route[] = [
    [
      "execute",
      "services:execute",
      202,
      () => [
        "/api/marketplace/services/token-count/execute",
        { method: "POST", body: JSON.stringify({ input: { text: "hi" } }) },
      ],
    ],
    [
      "create a developer_job",
      "services:execute",
      202,
      () => [
        "/api/developers/jobs",
        {
          method: "POST",
          body: JSON.stringify({ type: "developer_job", payload: { serviceId: "token-count", input: { text: "hi" } } }),
        },
      ],
    ],
    ["list jobs", "jobs:read", 200, () => ["/api/developers/jobs", {}]],
    ["job detail", "jobs:read", 200, () => [`/api/developers/jobs/${jobId}`, {}]],
    ["job logs", "jobs:read", 200, () => [`/api/developers/jobs/${jobId}/logs`, {}]],
    ["job telemetry", "telemetry:read", 200, () => [`/api/developers/jobs/${jobId}/telemetry`, {}]],
    ["credits balance", "credits:read", 200, () => ["/api/credits/balance", {}]],
    ["credits history", "credits:read", 200, () => ["/api/credits/history", {}]],
    ["usage metrics", "credits:read", 200, () => ["/api/developers/metrics", {}]],
  ];

  it.each(routes)(
    "%s: 403 INSUFFICIENT_SCOPE naming %s for a key with every other scope",
    async (_, scope, __, request) => {
      const key = await dev.createApiKey(allScopes.filter((s) => s !== scope));
      const [path, init] = request();
      const error = await expectError(await dev.withKey(key, path, init), 403, "INSUFFICIENT_SCOPE");
      expect(error.details).toEqual({ requiredScope: scope });
    },
  );

  it.each(routes)("%s: a key with only %s gets %i", async (_, scope, ok, request) => {
    const key = await dev.createApiKey([scope]);
    const [path, init] = request();
    const res = await dev.withKey(key, path, init);
    expect(res.status).toBe(ok);
  });

  it("job events: 403 without telemetry:read, a stream with it", async () => {
    const without = await dev.createApiKey(allScopes.filter((s) => s !== "telemetry:read"));
    const error = await expectError(
      await dev.withKey(without, `/api/developers/jobs/${jobId}/events`),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(error.details).toEqual({ requiredScope: "telemetry:read" });

    const only = await dev.createApiKey(["telemetry:read"]);
    const aborter = new AbortController();
    const res = await dev.withKey(only, `/api/developers/jobs/${jobId}/events`, { signal: aborter.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    aborter.abort();
    await res.body?.cancel().catch(() => undefined);
  });

  it("cancel: 403 without services:execute, 200 with only that scope", async () => {
    const owner = await dev.createApiKey();
    const job = await submit(dev, owner, "token-count", { text: "to cancel" });
    const without = await dev.createApiKey(allScopes.filter((s) => s !== "services:execute"));
    const error = await expectError(
      await dev.withKey(without, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" }),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(error.details).toEqual({ requiredScope: "services:execute" });

    const only = await dev.createApiKey(["services:execute"]);
    const res = await dev.withKey(only, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ jobId: job.jobId, status: "failed" });
  });

  it("a scope check never happens before the key check: a revoked key with the scope is 401", async () => {
    const created = await createKey(dev, { scopes: ["jobs:read"] });
    await revoke(dev, created.keyId);
    await expectError(await dev.withKey(created.key, "/api/developers/jobs"), 401, "INVALID_API_KEY");
  });
});
