// The playground's Run: a session route that submits through the execution API with the developer's
// server-held dashboard key (only services:execute, sealed at rest, never sent to the browser).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  // No execution node: jobs stay queued, which is all a submission needs.
  server = await startTestServer({ embeddedNodes: 0, env: { STARTER_CREDITS: "1000" } });
});
afterAll(() => server.close());

/** Every response body this file receives, to prove none carries a secret. */
const seen: string[] = [];
const secretPattern = /dev_[0-9A-Za-z]{32,}/;

async function read(res: Response): Promise<{ status: number; body: any; headers: Headers }> {
  const text = await res.text();
  seen.push(text, JSON.stringify([...res.headers]));
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const runPath = (serviceId: string) => `/api/dashboard/services/${serviceId}/run`;

function run(
  dev: Developer,
  serviceId: string,
  input: unknown,
  idempotencyKey: string | null = randomUUID(),
  headers: Record<string, string> = {},
) {
  return dev
    .session(runPath(serviceId), {
      method: "POST",
      body: JSON.stringify({ input }),
      headers: { ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}), ...headers },
    })
    .then(read);
}

interface KeyView {
  keyId: string;
  name: string;
  scopes: string[];
  kind: string;
  revokedAt: string | null;
}
const listKeys = async (dev: Developer) => (await read(await dev.session("/api/developers/keys"))).body as KeyView[];
const dashboardKeys = async (dev: Developer) => (await listKeys(dev)).filter((k) => k.kind === "dashboard");
const balance = async (dev: Developer) =>
  (await read(await dev.session("/api/credits/balance"))).body.balance as number;

async function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.requestId).toBe(res.headers.get("x-request-id"));
  return res.body.error;
}

describe("who may Run", () => {
  it("401 UNAUTHENTICATED without a wallet session", async () => {
    const res = await fetch(`${server.baseUrl}${runPath("token-count")}`, {
      method: "POST",
      headers: { origin: server.baseUrl, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ input: { text: "hi" } }),
    });
    await expectError(await read(res), 401, "UNAUTHENTICATED");
  });

  it("403 FORBIDDEN_ORIGIN from another origin or with no Origin, and nothing is created", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    await expectError(
      await run(dev, "token-count", { text: "hi" }, randomUUID(), { origin: "https://evil.example" }),
      403,
      "FORBIDDEN_ORIGIN",
    );
    const bare = await fetch(`${server.baseUrl}${runPath("token-count")}`, {
      method: "POST",
      headers: { cookie: dev.cookie, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ input: { text: "hi" } }),
    });
    await expectError(await read(bare), 403, "FORBIDDEN_ORIGIN");
    expect(await dashboardKeys(dev)).toEqual([]);
  });

  it("404 PROFILE_NOT_FOUND before the developer has a profile", async () => {
    const dev = await signUpDeveloper(server.baseUrl, { profile: false });
    await expectError(await run(dev, "token-count", { text: "hi" }), 404, "PROFILE_NOT_FOUND");
  });

  it("400 INVALID_REQUEST without an Idempotency-Key", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    await expectError(await run(dev, "token-count", { text: "hi" }, null), 400, "INVALID_REQUEST");
  });
});

describe("the dashboard key", () => {
  it("is created on the first Run with only services:execute, listed as the dashboard's, and reused", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const first = await run(dev, "token-count", { text: "hello" });
    expect(first.status).toBe(202);
    expect(first.headers.get("location")).toBe(`/jobs/${first.body.jobId}`);
    expect(first.body).toMatchObject({ serviceId: "token-count", input: { text: "hello" }, creditCost: 1 });
    const second = await run(dev, "language-detect", { text: "Bonjour tout le monde" });
    expect(second.status).toBe(202);
    expect(second.body.jobId).not.toBe(first.body.jobId);

    const keys = await dashboardKeys(dev);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ scopes: ["services:execute"], kind: "dashboard", revokedAt: null });
    // The jobs are the developer's, readable with the session.
    const job = await read(await dev.session(`/api/developers/jobs/${first.body.jobId}`));
    expect(job.status).toBe(200);
  });

  it("is created once when the first Runs arrive together", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const results = await Promise.all(Array.from({ length: 5 }, () => run(dev, "token-count", { text: "together" })));
    expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(await dashboardKeys(dev)).toHaveLength(1);
  });

  it("is replaced on the next Run after the developer revokes it", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    expect((await run(dev, "token-count", { text: "one" })).status).toBe(202);
    const [original] = await dashboardKeys(dev);
    expect((await read(await dev.session(`/api/developers/keys/${original.keyId}`, { method: "DELETE" }))).status).toBe(
      200,
    );

    const after = await run(dev, "token-count", { text: "two" });
    expect(after.status).toBe(202);
    const keys = await dashboardKeys(dev);
    expect(keys).toHaveLength(2);
    const live = keys.filter((k) => k.revokedAt === null);
    expect(live).toHaveLength(1);
    expect(live[0].keyId).not.toBe(original.keyId);
    expect(live[0].scopes).toEqual(["services:execute"]);
  });

  it("is replaced once it has expired", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    expect((await run(dev, "token-count", { text: "one" })).status).toBe(202);
    const [original] = await dashboardKeys(dev);
    const { db } = await import("@/lib/domain/database");
    const { apiKeys } = await import("@/lib/db/schema");
    const { eq, sql } = await import("drizzle-orm");
    await (
      await db()
    )
      .update(apiKeys)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(apiKeys.id, original.keyId));

    expect((await run(dev, "token-count", { text: "two" })).status).toBe(202);
    const live = (await dashboardKeys(dev)).filter((k) => k.revokedAt === null);
    expect(live).toHaveLength(1);
    expect(live[0].keyId).not.toBe(original.keyId);
  });

  it("cannot be rotated (its new secret would reach the browser): 409 KEY_MANAGED", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    await run(dev, "token-count", { text: "one" });
    const [key] = await dashboardKeys(dev);
    await expectError(
      await read(await dev.session(`/api/developers/keys/${key.keyId}/rotate`, { method: "POST" })),
      409,
      "KEY_MANAGED",
    );
  });

  it("is stored sealed: the row holds no plaintext, and it opens only with the dashboard's key and its own id", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    await run(dev, "token-count", { text: "one" });
    const [key] = await dashboardKeys(dev);
    const { db } = await import("@/lib/domain/database");
    const { apiKeys, dashboardKeys: table } = await import("@/lib/db/schema");
    const { eq } = await import("drizzle-orm");
    const { unseal } = await import("@/lib/domain/sealing");
    const { hashSecret } = await import("@/lib/domain/api-keys");
    const d = await db();
    const [row] = await d.select().from(table).where(eq(table.apiKeyId, key.keyId));
    const [keyRow] = await d.select().from(apiKeys).where(eq(apiKeys.id, key.keyId));
    expect(row.sealedSecret).not.toMatch(/dev_/);
    const secret = unseal("dashboard-keys", row.sealedSecret ?? "", key.keyId);
    expect(secret).toMatch(/^dev_[0-9A-Za-z]{43}$/);
    expect(hashSecret(secret ?? "")).toBe(keyRow.secretHash);
    expect(unseal("webhook-secrets/v1", row.sealedSecret ?? "", key.keyId)).toBeNull();
    expect(unseal("dashboard-keys", row.sealedSecret ?? "", randomUUID())).toBeNull();
  });
});

describe("idempotent Run", () => {
  it("a double submit with one Idempotency-Key creates one job and one charge", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const before = await balance(dev);
    const idempotencyKey = randomUUID();
    const [a, b] = await Promise.all([
      run(dev, "text-summarize", { text: "One sentence. Another one." }, idempotencyKey),
      run(dev, "text-summarize", { text: "One sentence. Another one." }, idempotencyKey),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.jobId).toBe(a.body.jobId);
    // A retried request later: still the same job.
    const retried = await run(dev, "text-summarize", { text: "One sentence. Another one." }, idempotencyKey);
    expect(retried.body.jobId).toBe(a.body.jobId);

    expect(await balance(dev)).toBe(before - 2);
    const jobs = (await read(await dev.session("/api/developers/jobs"))).body;
    expect(jobs.pagination.total).toBe(1);
    const history = (await read(await dev.session("/api/credits/history"))).body;
    expect(history.data.filter((e: { type: string }) => e.type === "charge")).toHaveLength(1);
  });
});

describe("refusals from the API reach the form in the contract's envelope", () => {
  it("422 INVALID_SERVICE_INPUT with details.issues at the field paths, and no charge", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const before = await balance(dev);
    const res = await run(dev, "text-summarize", { text: "", sentences: 11 });
    const error = await expectError(res, 422, "INVALID_SERVICE_INPUT");
    expect(error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(["sentences", "text"]);
    expect(error.details.issues.every((i: { message: string }) => i.message.length > 0)).toBe(true);
    expect(await balance(dev)).toBe(before);
  });

  it("409 SERVICE_DISABLED for a disabled service (text-generate without an LLM)", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    await expectError(await run(dev, "text-generate", { prompt: "Hello" }), 409, "SERVICE_DISABLED");
  });

  it("404 SERVICE_NOT_FOUND for an unknown service", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    await expectError(await run(dev, "no-such-service", { text: "x" }), 404, "SERVICE_NOT_FOUND");
  });

  it("402 INSUFFICIENT_CREDITS when the balance is short", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const { db } = await import("@/lib/domain/database");
    const { accounts } = await import("@/lib/db/schema");
    const { sql } = await import("drizzle-orm");
    await (
      await db()
    )
      .update(accounts)
      .set({ creditBalance: 1 })
      .where(sql`lower(${accounts.walletAddress}) = lower(${dev.address})`);
    // A valid 1×1 PNG: the input passes image-ocr's checks, so the balance is what refuses it.
    const onePixelPng =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    await expectError(await run(dev, "image-ocr", { image: onePixelPng }), 402, "INSUFFICIENT_CREDITS");
  });
});

describe("secrets", () => {
  it("no response of this file carried an API key secret", () => {
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter((text) => secretPattern.test(text))).toEqual([]);
  });
});
