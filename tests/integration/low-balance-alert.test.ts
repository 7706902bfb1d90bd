// The low-balance alert (CONTRACT §11): a threshold on the profile, and one signed `credits.low` webhook
// event, recorded with the charge that takes the balance from at or above it to below it: once per
// crossing, again after the balance is back up, never for a refused charge, once under concurrency.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../lib/client/src/index";
import { createKey } from "../support/api-keys";
import { signUpDeveloper, type Developer } from "../support/developer";
import { expectError } from "../support/expect-error";
import { eventually, execute, type JobView } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let server: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Every developer starts with 10 credits; token-count costs 1, text-summarize 2.
  server = await startTestServer({
    embeddedNodes: 0,
    env: {
      STARTER_CREDITS: "10",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      RATE_LIMIT_PER_MINUTE: "0",
      ACCOUNT_RATE_PER_MINUTE: "0",
    },
  });
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

interface Alerting {
  dev: Developer;
  key: string;
  endpointId: string;
  secret: string;
  path: string;
}

let developers = 0;
/** A developer with 10 credits, an endpoint subscribed to `events`, and `threshold` on the profile. */
async function alertingDeveloper(threshold: number | null, events = ["credits.low"]): Promise<Alerting> {
  const dev = await signUpDeveloper(server.baseUrl);
  const path = `/developer-${++developers}`;
  const res = await dev.session("/api/developers/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: receiver.url(path), events }),
  });
  expect(res.status).toBe(201);
  const { endpointId, secret } = await res.json();
  const set = await dev.session("/api/developers/me", {
    method: "PATCH",
    body: JSON.stringify({ lowBalanceThreshold: threshold }),
  });
  expect(set.status).toBe(200);
  return { dev, key: await dev.createApiKey(), endpointId, secret, path };
}

const charge = async (a: Alerting, n = 0): Promise<JobView> => {
  const res = await execute(a.dev, a.key, "token-count", { text: `charge ${n}` });
  expect(res.status).toBe(202);
  return res.json();
};
const balanceOf = async (a: Alerting) =>
  ((await (await a.dev.withKey(a.key, "/api/credits/balance")).json()) as { balance: number }).balance;

/** The credits.low deliveries recorded for the endpoint (the outbox, read through the API). */
async function alertsOf(a: Alerting): Promise<{ eventId: string; eventType: string; jobId: string | null }[]> {
  const res = await a.dev.session(`/api/developers/webhooks/${a.endpointId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return ((await res.json()).data as { eventId: string; eventType: string; jobId: string | null }[]).filter(
    (d) => d.eventType === "credits.low",
  );
}

/** The credits.low events the receiver got for this developer, each verified with the endpoint's secret. */
const receivedAlerts = (a: Alerting) =>
  receiver.received
    .filter((r) => r.path === a.path)
    .map((r) => verifyWebhook(r.body, r.headers as Record<string, string>, a.secret))
    .filter((event) => event.type === "credits.low");

describe("the low-balance threshold on the profile", () => {
  it("is null at first, set and cleared with PATCH /api/developers/me", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    expect((await (await dev.session("/api/developers/me")).json()).lowBalanceThreshold).toBeNull();
    const set = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ lowBalanceThreshold: 25 }),
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ name: "Ada Developer", lowBalanceThreshold: 25 });
    expect((await (await dev.session("/api/developers/me")).json()).lowBalanceThreshold).toBe(25);
    const zero = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ lowBalanceThreshold: 0 }),
    });
    expect((await zero.json()).lowBalanceThreshold).toBe(0);
    const cleared = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ lowBalanceThreshold: null }),
    });
    expect((await cleared.json()).lowBalanceThreshold).toBeNull();
  });

  it.each([-1, 2.5, "10", 2 ** 53, true])("refuses %j with 400 INVALID_REQUEST", async (threshold) => {
    const dev = await signUpDeveloper(server.baseUrl);
    await expectError(
      await dev.session("/api/developers/me", {
        method: "PATCH",
        body: JSON.stringify({ lowBalanceThreshold: threshold }),
      }),
      400,
      "INVALID_REQUEST",
    );
  });

  it("is changed only from the app's own Origin (403 FORBIDDEN_ORIGIN)", async () => {
    const dev = await signUpDeveloper(server.baseUrl);
    const foreign = await dev.session("/api/developers/me", {
      method: "PATCH",
      body: JSON.stringify({ lowBalanceThreshold: 5 }),
      headers: { origin: "https://evil.example" },
    });
    await expectError(foreign, 403, "FORBIDDEN_ORIGIN");
    expect((await (await dev.session("/api/developers/me")).json()).lowBalanceThreshold).toBeNull();
  });
});

// One statement when only credits.low is subscribed; the general transaction when job events are too.
describe.each([
  { path: "one statement", events: ["credits.low"] },
  { path: "transaction with the webhook outbox", events: ["credits.low", "job.status_changed"] },
])("credits.low, charges written in the $path", ({ events }) => {
  it("is recorded once when a charge crosses the threshold, and again only after the balance is back at it", async () => {
    const a = await alertingDeveloper(8, events);
    await charge(a, 1); // 10 → 9
    await charge(a, 2); // 9 → 8: at the threshold is not below it
    expect(await alertsOf(a)).toHaveLength(0);

    const crossing = await charge(a, 3); // 8 → 7: crosses
    expect(await alertsOf(a)).toHaveLength(1);
    const refunded = await charge(a, 4); // 7 → 6: still below, no new alert
    expect(await alertsOf(a)).toHaveLength(1);

    // Two refunds take the balance back to the threshold (6 → 7 → 8): the alert is armed again.
    for (const job of [crossing, refunded]) {
      expect((await a.dev.withKey(a.key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" })).status).toBe(
        200,
      );
    }
    expect(await balanceOf(a)).toBe(8);
    expect(await alertsOf(a)).toHaveLength(1);
    await charge(a, 5); // 8 → 7: crosses again
    const alerts = await alertsOf(a);
    expect(alerts).toHaveLength(2);
    expect(alerts.every((d) => d.jobId === null)).toBe(true);
    expect(new Set(alerts.map((d) => d.eventId)).size).toBe(2);

    // Both arrive signed, each saying the balance after the charge and the threshold.
    const received = await eventually(
      async () => receivedAlerts(a),
      (got) => got.length >= 2,
    );
    expect(received.map((e) => e.data)).toEqual([
      { balance: 7, threshold: 8 },
      { balance: 7, threshold: 8 },
    ]);
  });

  it("is not recorded for a refused charge, nor while the balance starts below the threshold", async () => {
    const a = await alertingDeveloper(10, events);
    // The key's limit refuses the charge: nothing is charged, so nothing crosses.
    const { key } = await createKey(a.dev, { creditLimit: 1 });
    await expectError(
      await execute(a.dev, key, "text-summarize", { text: "Two credits. More than the key may spend." }),
      402,
      "KEY_CREDIT_LIMIT",
    );
    expect(await balanceOf(a)).toBe(10);
    expect(await alertsOf(a)).toHaveLength(0);
    await charge(a, 1); // 10 → 9: crosses
    expect(await alertsOf(a)).toHaveLength(1);

    const below = await alertingDeveloper(50, events);
    await charge(below, 1);
    await charge(below, 2);
    expect(await alertsOf(below)).toHaveLength(0);
  });
});

describe("credits.low under concurrency and without a threshold", () => {
  it("is recorded exactly once when many charges at once cross the threshold", async () => {
    const a = await alertingDeveloper(5);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => execute(a.dev, a.key, "token-count", { text: `at once ${i}` })),
    );
    expect(responses.every((r) => r.status === 202)).toBe(true);
    expect(await balanceOf(a)).toBe(0);
    expect(await alertsOf(a)).toHaveLength(1);
    const [event] = await eventually(
      async () => receivedAlerts(a),
      (got) => got.length >= 1,
    );
    expect(event.data).toEqual({ balance: 4, threshold: 5 });
  });

  it("is never recorded without a threshold", async () => {
    const a = await alertingDeveloper(null);
    for (let i = 0; i < 10; i++) await charge(a, i);
    expect(await balanceOf(a)).toBe(0);
    expect(await alertsOf(a)).toHaveLength(0);
  });
});
