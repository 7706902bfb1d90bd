import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit, telemetry, typesOf, waitForStatus } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let dev: Developer;
let key: string;
beforeAll(async () => {
  // No node at all: nothing can take the job.
  server = await startTestServer({ embeddedNodes: 0, env: { ROUTING_TIMEOUT_MS: "300" } });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
});
afterAll(() => server.close());

describe("routing", () => {
  it("fails a job no eligible node takes within ROUTING_TIMEOUT_MS, category routing, refunded", async () => {
    const job = await submit(dev, key, "text-sentiment", { text: "Nobody is listening." });
    const done = await waitForStatus(dev, key, job.jobId);
    expect(done).toMatchObject({ status: "failed", attempt: 0, error: { category: "routing", code: "NO_ELIGIBLE_NODE" } });
    expect(typesOf(await telemetry(dev, key, job.jobId))).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "ROUTING_FAILED",
      "JOB_FAILED",
    ]);
    const balance = await (await dev.withKey(key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(100);
  });
});
