// Without WEBHOOK_ALLOWED_HOSTS, webhooks never reach a private address: a literal one is refused at
// registration, and a host name that resolves to one fails the attempt before any connection is made.
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

  it("fail an attempt to a host name resolving to loopback with DESTINATION_FORBIDDEN, and the receiver sees nothing", async () => {
    const res = await register(`https://localhost:${receiver.port}/hook`);
    expect(res.status).toBe(201);
    const { endpointId } = (await res.json()) as { endpointId: string };
    expect((await dev.session(`/api/developers/webhooks/${endpointId}/test`, { method: "POST" })).status).toBe(202);
    const [delivery] = await eventually(
      async () =>
        (
          (await (await dev.session(`/api/developers/webhooks/${endpointId}/deliveries`)).json()) as {
            data: { attempts: number; lastError: string | null; lastResponseStatus: number | null }[];
          }
        ).data,
      (d) => (d[0]?.attempts ?? 0) >= 2,
    );
    expect(delivery.lastError).toBe("DESTINATION_FORBIDDEN");
    expect(delivery.lastResponseStatus).toBeNull();
    expect(receiver.connections()).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});
