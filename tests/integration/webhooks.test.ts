// Signed webhooks end to end (CONTRACT §8) against a receiver on 127.0.0.1 (allowed by configuration):
// every status change in order, job.completed once, Standard Webhooks signatures, retries with the same
// webhook-id, the timeout, rotation, redelivery, a delivery's request and attempts as the receiver saw them,
// and isolation between developers.
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../lib/client/src/index";
import { webhookAttempts } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, submit, waitForStatus } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { eventsAt, startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

// Short enough for the hanging receiver's test, long enough for a loaded machine (the embedded database
// shares the event loop with the sender).
const timeoutMs = 3_000;
/** 10 KB of ASCII: more than the 4 KB kept of an answer. */
const noisyAnswer = "0123456789abcdef".repeat(640);
let server: TestServer;
let receiver: WebhookReceiver;
let dev: Developer;
let key: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver((path, nth) => {
    if (path === "/flaky") return nth < 2 ? 500 : 200;
    if (path === "/hang" || path === "/held") return "hang";
    // An outage page (with a NUL byte, which a text column cannot hold), then the usual 2 KB answer.
    if (path === "/inspected") return nth === 0 ? { status: 503, body: "down for maintenance\u0000 – back soon" } : 200;
    if (path === "/noisy") return { status: 500, body: noisyAnswer };
    return 200;
  });
  server = await startTestServer({
    env: {
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_SCHEDULE_MS: "100,200",
      WEBHOOK_TIMEOUT_MS: String(timeoutMs),
      STARTER_CREDITS: "1000",
    },
  });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

interface Endpoint {
  endpointId: string;
  url: string;
  events: string[];
  status: string;
  secret: string;
}

interface Delivery {
  deliveryId: string;
  eventId: string;
  eventType: string;
  jobId: string | null;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  nextAttemptAt: string | null;
}

async function register(
  owner: Developer,
  path: string,
  events = ["job.status_changed", "job.completed", "job.failed"],
): Promise<Endpoint> {
  const res = await owner.session("/api/developers/webhooks", {
    method: "POST",
    body: JSON.stringify({ url: receiver.url(path), events }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Endpoint;
}

async function deliveries(endpointId: string): Promise<Delivery[]> {
  const res = await dev.session(`/api/developers/webhooks/${endpointId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Delivery[] }).data;
}

interface Attempt {
  attemptedAt: string;
  responseStatus: number | null;
  responseBody: string | null;
  latencyMs: number;
  error: string | null;
}

/** One delivery as its detail shows it: `attempts` is the list of the last 20, `attemptCount` all of them. */
type DeliveryDetail = Omit<Delivery, "attempts"> & {
  attemptCount: number;
  request: { headers: Record<string, string>; body: string };
  attempts: Attempt[];
};

async function deliveryDetail(endpointId: string, deliveryId: string) {
  const res = await dev.session(`/api/developers/webhooks/${endpointId}/deliveries/${deliveryId}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as DeliveryDetail;
}

const sendTest = (endpointId: string) => dev.session(`/api/developers/webhooks/${endpointId}/test`, { method: "POST" });

describe("webhook endpoints", () => {
  it("show the whsec_ secret once, at registration; reads never include it", async () => {
    const endpoint = await register(dev, "/listing", ["job.completed"]);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({
      url: receiver.url("/listing"),
      events: ["job.completed"],
      status: "enabled",
      disabledReason: null,
    });
    const one = await (await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`)).json();
    const list = (await (await dev.session("/api/developers/webhooks")).json()) as Endpoint[];
    expect(one).not.toHaveProperty("secret");
    expect(list.find((e) => e.endpointId === endpoint.endpointId)).not.toHaveProperty("secret");
    expect(JSON.stringify(list)).not.toContain(endpoint.secret.slice(6));
  });

  it("are managed with an API key only when it has webhooks:manage, and from the app's origin only with the session", async () => {
    const withoutScope = await dev.createApiKey(["jobs:read"]);
    const denied = await dev.withKey(withoutScope, "/api/developers/webhooks");
    expect(denied.status).toBe(403);
    expect((await denied.json()).error).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
      details: { requiredScope: "webhooks:manage" },
    });
    expect((await dev.withKey(key, "/api/developers/webhooks")).status).toBe(200);
    const foreign = await dev.session("/api/developers/webhooks", {
      method: "POST",
      headers: { origin: "https://evil.example" },
      body: JSON.stringify({ url: receiver.url("/x"), events: ["job.completed"] }),
    });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe("FORBIDDEN_ORIGIN");
  });

  it("refuse bad bodies with INVALID_REQUEST and forbidden URLs with VALIDATION_ERROR", async () => {
    const post = (body: unknown) =>
      dev.session("/api/developers/webhooks", { method: "POST", body: JSON.stringify(body) });
    const codeOf = async (res: Response) => [
      res.status,
      ((await res.json()) as { error: { code: string } }).error.code,
    ];
    expect(await codeOf(await post({ url: receiver.url("/x"), events: [] }))).toEqual([400, "INVALID_REQUEST"]);
    expect(await codeOf(await post({ url: receiver.url("/x"), events: ["job.exploded"] }))).toEqual([
      400,
      "INVALID_REQUEST",
    ]);
    expect(await codeOf(await post({ url: "http://hooks.example.com/in", events: ["job.completed"] }))).toEqual([
      400,
      "VALIDATION_ERROR",
    ]);
    expect(
      await codeOf(await post({ url: "https://user:pw@hooks.example.com/in", events: ["job.completed"] })),
    ).toEqual([400, "VALIDATION_ERROR"]);
    expect(await codeOf(await post({ url: "https://10.0.0.7/in", events: ["job.completed"] }))).toEqual([
      400,
      "VALIDATION_ERROR",
    ]);
  });

  it("are at most 10 per developer: the 11th is 409 LIMIT_REACHED", async () => {
    const other = await signUpDeveloper(server.baseUrl);
    for (let i = 0; i < 10; i++) await register(other, `/limit-${i}`);
    const res = await other.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: receiver.url("/limit-10"), events: ["job.completed"] }),
    });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("LIMIT_REACHED");
  });

  it("of another developer are not found, exactly like one that does not exist", async () => {
    const endpoint = await register(dev, "/private");
    expect((await sendTest(endpoint.endpointId)).status).toBe(202);
    const [delivery] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => d.length === 1,
    );
    const stranger = await signUpDeveloper(server.baseUrl);
    const base = `/api/developers/webhooks/${endpoint.endpointId}`;
    for (const [path, method, body] of [
      [base, "GET"],
      [base, "PATCH", { status: "disabled" }],
      [base, "DELETE"],
      [`${base}/rotate-secret`, "POST"],
      [`${base}/test`, "POST"],
      [`${base}/deliveries`, "GET"],
      [`${base}/deliveries/${delivery.deliveryId}`, "GET"],
      [`${base}/deliveries/${delivery.deliveryId}/redeliver`, "POST"],
      [`/api/developers/webhooks/${crypto.randomUUID()}`, "GET"],
      ["/api/developers/webhooks/not-a-uuid", "GET"],
    ] as const) {
      const res = await stranger.session(path, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await res.json()).error.code).toBe("NOT_FOUND");
    }
    expect((await dev.session(base)).status).toBe(200);
  });
});

describe("webhook deliveries", () => {
  it("bring every status change of a job in order, and job.completed once per job, signed for our verifyWebhook and standardwebhooks", async () => {
    const endpoint = await register(dev, "/jobs");
    const jobs = await Promise.all(
      [0, 1, 2].map((i) => submit(dev, key, "token-count", { text: `count these words ${i}` })),
    );
    for (const job of jobs) await waitForStatus(dev, key, job.jobId);
    const events = await eventually(
      async () => eventsAt(receiver, "/jobs"),
      // Order of arrival is not guaranteed: wait for the job.completed and the five status changes of each job.
      (list) =>
        jobs.every(
          (job) => list.filter((e) => (e.event.data.job as { jobId: string }).jobId === job.jobId).length >= 6,
        ),
    );
    for (const e of events) {
      const headers = e.headers as Record<string, string>;
      expect(verifyWebhook(e.body, headers, endpoint.secret)).toEqual(e.event);
      expect(new Webhook(endpoint.secret).verify(e.body, headers)).toEqual(e.event);
      // Tracing is off here (no OTEL_EXPORTER_OTLP_* variable): a delivery carries no trace context.
      expect(headers).not.toHaveProperty("traceparent");
    }
    for (const job of jobs) {
      const mine = events.filter((e) => (e.event.data.job as { jobId: string }).jobId === job.jobId);
      const changes = mine
        .filter((e) => e.event.type === "job.status_changed")
        .sort((a, b) => (a.event.data.sequence as number) - (b.event.data.sequence as number))
        .map((e) => (e.event.data.job as { status: string }).status);
      expect(changes).toEqual(["queued", "routing", "assigned", "running", "completed"]);
      const completed = mine.filter((e) => e.event.type === "job.completed");
      expect(completed).toHaveLength(1);
      expect(completed[0].event.data.job).toMatchObject({ jobId: job.jobId, status: "completed" });
    }
    // Every delivery of the job is listed for the job page, succeeded.
    const all = await eventually(
      async () =>
        (await (await dev.session(`/api/developers/jobs/${jobs[0].jobId}/webhook-deliveries`)).json()) as (Delivery & {
          endpointId: string;
        })[],
      (list) => list.every((d) => d.status !== "pending"),
    );
    const forJob = all.filter((d) => d.endpointId === endpoint.endpointId);
    expect(forJob.map((d) => d.eventType).sort()).toEqual(
      ["job.completed", ...Array(5).fill("job.status_changed")].sort(),
    );
    // (At least once: on a loaded machine an attempt may time out after the receiver got it, and be retried.)
    expect(forJob.map((d) => [d.status, d.lastResponseStatus, d.lastError])).toEqual(
      Array(6).fill(["succeeded", 200, null]),
    );
    expect(forJob.every((d) => d.attempts >= 1)).toBe(true);
  });

  it("are retried after 500, 500 with the same webhook-id, and end succeeded with 3 attempts", async () => {
    const endpoint = await register(dev, "/flaky");
    expect((await sendTest(endpoint.endpointId)).status).toBe(202);
    const [delivery] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => d[0]?.status === "succeeded",
    );
    expect(delivery).toMatchObject({
      eventType: "webhook.test",
      attempts: 3,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    const requests = receiver.received.filter((r) => r.path === "/flaky");
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([delivery.eventId]));
    expect(JSON.parse(requests[0].body)).toMatchObject({ type: "webhook.test", data: {} });
    // The schedule (100 ms, then 200 ms) is kept.
    expect(requests[1].receivedAt - requests[0].receivedAt).toBeGreaterThanOrEqual(90);
    expect(requests[2].receivedAt - requests[1].receivedAt).toBeGreaterThanOrEqual(190);
  });

  it("to a receiver that never answers are cut at the timeout and retried", async () => {
    const endpoint = await register(dev, "/hang");
    const started = Date.now();
    await sendTest(endpoint.endpointId);
    const [delivery] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => d[0]?.lastError === "TIMEOUT",
    );
    expect(delivery.status).toBe("pending");
    expect(delivery.lastResponseStatus).toBeNull();
    expect(delivery.lastLatencyMs).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(delivery.lastLatencyMs).toBeLessThan(timeoutMs + 2_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs);
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, { method: "DELETE" });
  });

  it("to one endpoint are never more in flight at once than its cap, however many claims send them", async () => {
    const { limits } = await import("@/lib/limits");
    const cap = limits.webhookInFlightPerEndpoint;
    const endpoint = await register(dev, "/held");
    const held = (before = Infinity) =>
      receiver.received.filter((r) => r.path === "/held" && r.receivedAt < before).length;
    // One is claimed and held first; then a burst, which the next claim finds with one already in flight.
    expect((await sendTest(endpoint.endpointId)).status).toBe(202);
    await eventually(
      async () => held(),
      (n) => n === 1,
      timeoutMs - 1_000,
    );
    // The first times out (its place free again) timeoutMs after it was sent, which was before it arrived: what
    // arrives until shortly before then was sent while it was in flight. Counted in that window only, so a slow
    // burst on a loaded machine cannot count a delivery sent in the place it left.
    const window = receiver.received.find((r) => r.path === "/held")!.receivedAt + timeoutMs - 500;
    const burst = await Promise.all(Array.from({ length: cap + 3 }, () => sendTest(endpoint.endpointId)));
    expect(burst.map((res) => res.status)).toEqual(burst.map(() => 202));
    await eventually(
      async () => held(),
      (n) => n >= cap,
      timeoutMs - 1_000,
    );
    // Until the first of them times out, none of the other four is sent.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(500, window - Date.now()))));
    expect(held(window)).toBe(cap);
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, { method: "DELETE" });
  });

  it("after a rotation carry two signatures for 24 h: the old and the new secret both verify", async () => {
    const endpoint = await register(dev, "/rotated");
    const res = await dev.session(`/api/developers/webhooks/${endpoint.endpointId}/rotate-secret`, { method: "POST" });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as Endpoint;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await sendTest(endpoint.endpointId);
    const [event] = await eventually(
      async () => eventsAt(receiver, "/rotated"),
      (list) => list.length === 1,
    );
    const headers = event.headers as Record<string, string>;
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifyWebhook(event.body, headers, endpoint.secret).type).toBe("webhook.test");
    expect(verifyWebhook(event.body, headers, rotated.secret).type).toBe("webhook.test");
    expect(new Webhook(endpoint.secret).verify(event.body, headers)).toBeTruthy();
    expect(new Webhook(rotated.secret).verify(event.body, headers)).toBeTruthy();
  });

  it("are sent again with the same webhook-id on Redeliver", async () => {
    const endpoint = await register(dev, "/again");
    await sendTest(endpoint.endpointId);
    const [first] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => d[0]?.status === "succeeded",
    );
    const res = await dev.session(
      `/api/developers/webhooks/${endpoint.endpointId}/deliveries/${first.deliveryId}/redeliver`,
      { method: "POST" },
    );
    expect(res.status).toBe(202);
    const [again] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => d[0]?.attempts === 2 && d[0].status === "succeeded",
    );
    expect(again.eventId).toBe(first.eventId);
    const ids = receiver.received.filter((r) => r.path === "/again").map((r) => r.headers["webhook-id"]);
    expect(ids).toEqual([first.eventId, first.eventId]);
  });

  it("wait while their endpoint is disabled, and go out once it is enabled again", async () => {
    const endpoint = await register(dev, "/paused");
    const patch = (status: string) =>
      dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, {
        method: "PATCH",
        body: JSON.stringify({ status }),
      });
    expect(((await (await patch("disabled")).json()) as Endpoint).status).toBe("disabled");
    await sendTest(endpoint.endpointId);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.filter((r) => r.path === "/paused")).toHaveLength(0);
    expect(((await (await patch("enabled")).json()) as Endpoint).status).toBe("enabled");
    await eventually(
      async () => eventsAt(receiver, "/paused"),
      (list) => list.length === 1,
    );
  });
});

describe("a delivery's detail", () => {
  it("shows the request exactly as the receiver got it, and every attempt's status, answer, latency and error, oldest first", async () => {
    const endpoint = await register(dev, "/inspected");
    await sendTest(endpoint.endpointId);
    const [delivery] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => d[0]?.status === "succeeded",
    );
    const detail = await deliveryDetail(endpoint.endpointId, delivery.deliveryId);
    const [first, second] = receiver.received.filter((r) => r.path === "/inspected");

    // The request of the latest attempt: the Standard Webhooks headers and content-type it carried, byte for
    // byte, and the exact body (verifiable with the endpoint's secret, which the answer never contains).
    expect(detail.request).toEqual({
      headers: {
        "content-type": second.headers["content-type"],
        "webhook-id": second.headers["webhook-id"],
        "webhook-timestamp": second.headers["webhook-timestamp"],
        "webhook-signature": second.headers["webhook-signature"],
      },
      body: second.body,
    });
    expect(detail.request.headers["webhook-id"]).toBe(delivery.eventId);
    expect(verifyWebhook(detail.request.body, detail.request.headers, endpoint.secret).type).toBe("webhook.test");
    expect(JSON.stringify(detail)).not.toContain(endpoint.secret.slice("whsec_".length));
    expect(detail).toMatchObject({
      deliveryId: delivery.deliveryId,
      eventId: delivery.eventId,
      eventType: "webhook.test",
      status: "succeeded",
      attemptCount: 2,
    });

    // Each attempt: when it started, what the receiver answered (its body up to 4 KB; a NUL byte, which
    // PostgreSQL's text cannot hold, kept as U+FFFD), how long it took, and the error it counted as.
    expect(detail.attempts).toEqual([
      {
        attemptedAt: expect.any(String),
        responseStatus: 503,
        responseBody: "down for maintenance\uFFFD – back soon",
        latencyMs: expect.any(Number),
        error: "BAD_STATUS",
      },
      {
        attemptedAt: expect.any(String),
        responseStatus: 200,
        responseBody: second.answerBody,
        latencyMs: expect.any(Number),
        error: null,
      },
    ]);
    const [at1, at2] = detail.attempts.map((a) => Date.parse(a.attemptedAt));
    expect(at1).toBeLessThanOrEqual(first.receivedAt);
    expect(at2).toBeGreaterThanOrEqual(first.receivedAt);
    expect(at2).toBeLessThanOrEqual(second.receivedAt);
    for (const a of detail.attempts) expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, { method: "DELETE" });
  });

  it("before any attempt shows the headers every attempt carries, and no attempts", async () => {
    const endpoint = await register(dev, "/not-yet");
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, {
      method: "PATCH",
      body: JSON.stringify({ status: "disabled" }),
    });
    await sendTest(endpoint.endpointId);
    const [delivery] = await deliveries(endpoint.endpointId);
    const detail = await deliveryDetail(endpoint.endpointId, delivery.deliveryId);
    expect(detail).toMatchObject({
      status: "pending",
      attemptCount: 0,
      attempts: [],
      request: { headers: { "content-type": "application/json", "webhook-id": delivery.eventId } },
    });
    expect(JSON.parse(detail.request.body)).toMatchObject({ type: "webhook.test", data: {} });
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, { method: "DELETE" });
  });

  it("keeps the last 20 attempts of a delivery, and the first 4 KB of each answer", async () => {
    const endpoint = await register(dev, "/noisy");
    await sendTest(endpoint.endpointId);
    const [delivery] = await eventually(
      () => deliveries(endpoint.endpointId),
      (d) => (d[0]?.attempts ?? 0) >= 21,
    );
    // Stop the retries: the endpoint's deliveries wait while it is disabled.
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, {
      method: "PATCH",
      body: JSON.stringify({ status: "disabled" }),
    });
    const detail = await deliveryDetail(endpoint.endpointId, delivery.deliveryId);
    expect(detail.attemptCount).toBeGreaterThanOrEqual(21);
    expect(detail.attempts).toHaveLength(20);
    for (const a of detail.attempts) {
      expect(a).toMatchObject({ responseStatus: 500, error: "BAD_STATUS", responseBody: noisyAnswer.slice(0, 4096) });
    }
    const stored = await (
      await db()
    )
      .select({ attempt: webhookAttempts.attempt })
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, delivery.deliveryId));
    expect(stored.length).toBeLessThanOrEqual(20);
    await dev.session(`/api/developers/webhooks/${endpoint.endpointId}`, { method: "DELETE" });
  });

  it("of another endpoint, or one that does not exist, is not found", async () => {
    const one = await register(dev, "/one-of-two");
    const two = await register(dev, "/two-of-two");
    await sendTest(one.endpointId);
    const [delivery] = await eventually(
      () => deliveries(one.endpointId),
      (d) => d.length === 1,
    );
    for (const path of [
      `/api/developers/webhooks/${two.endpointId}/deliveries/${delivery.deliveryId}`,
      `/api/developers/webhooks/${one.endpointId}/deliveries/${crypto.randomUUID()}`,
      `/api/developers/webhooks/${one.endpointId}/deliveries/not-a-uuid`,
    ]) {
      const res = await dev.session(path);
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.code).toBe("NOT_FOUND");
    }
  });
});
