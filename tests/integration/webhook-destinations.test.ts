// Without WEBHOOK_ALLOWED_HOSTS, webhooks never reach a private address: a literal one is refused at
// registration, and a host name that resolves to one fails the delivery at its first attempt, before any
// connection is made and without retries (CONTRACT §8: the policy will not change by waiting).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

let server: TestServer;
let receiver: WebhookReceiver;
let dev: Developer;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await startTestServer({ env: { WEBHOOK_ALLOWED_HOSTS: "", WEBHOOK_RETRY_SCHEDULE_MS: "100" } });
  dev = await signUpDeveloper(server.baseUrl);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

const register = (url: string) =>
  dev.session("/api/developers/webhooks", { method: "POST", body: JSON.stringify({ url, events: ["job.completed"] }) });

describe("webhook destinations without an allow list", () => {
  it.each([
    `http://127.0.0.1:${1}/hook`,
    "https://127.0.0.1/hook",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://192.168.1.10/hook",
    "https://100.64.0.1/hook",
    "http://localhost/hook",
  ])("refuse %s at registration with 400 VALIDATION_ERROR", async (url) => {
    const res = await register(url);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: "VALIDATION_ERROR", details: { field: "url" } });
  });

  it("say, refusing plain http, how to test with a receiver on your own machine", async () => {
    const res = await register("http://localhost:3000/hook");
    const { message } = (await res.json()).error as { message: string };
    expect(message).toContain("must use https:");
    expect(message).toContain("WEBHOOK_ALLOWED_HOSTS=127.0.0.1,localhost");
    expect(message).toContain("a public https URL");
  });

  it("fail a delivery to a host name resolving to loopback at once with DESTINATION_FORBIDDEN: one attempt, no retry, no connection", async () => {
    const res = await register(`https://localhost:${receiver.port}/hook`);
    expect(res.status).toBe(201);
    const { endpointId } = (await res.json()) as { endpointId: string };
    expect((await dev.session(`/api/developers/webhooks/${endpointId}/test`, { method: "POST" })).status).toBe(202);
    type Delivery = {
      status: string;
      attempts: number;
      lastError: string | null;
      lastResponseStatus: number | null;
      nextAttemptAt: string | null;
    };
    const list = async () =>
      ((await (await dev.session(`/api/developers/webhooks/${endpointId}/deliveries`)).json()) as { data: Delivery[] })
        .data;
    await eventually(list, (d) => (d[0]?.attempts ?? 0) >= 1 && d[0].lastError !== null);
    // The retry schedule here is 100 ms: a delivery still retried would have tried several times more by now.
    await new Promise((r) => setTimeout(r, 600));
    const [delivery] = await list();
    expect(delivery).toMatchObject({
      status: "failed",
      attempts: 1,
      lastError: "DESTINATION_FORBIDDEN",
      lastResponseStatus: null,
      nextAttemptAt: null,
    });
    expect(receiver.connections()).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});
