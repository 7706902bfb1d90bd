import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit, waitForStatus } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let dev: Developer;
let key: string;
beforeAll(async () => {
  // No node at all: every job fails with a routing error after ROUTING_TIMEOUT_MS.
  server = await startTestServer({ embeddedNodes: 0, env: { ROUTING_TIMEOUT_MS: "200" } });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
});
afterAll(() => server.close());

describe("refunds", () => {
  it("refunds the charge of a job that fails, restoring the balance", async () => {
    const job = await submit(dev, key, "text-summarize", { text: "Nobody will summarise this. It fails first." });
    expect(job.creditCost).toBe(2);
    const charged = await (await dev.withKey(key, "/api/credits/balance")).json();
    expect(charged.balance).toBe(98);

    const failed = await waitForStatus(dev, key, job.jobId);
    expect(failed).toMatchObject({ status: "failed", error: { category: "routing" } });

    const history = await (await dev.withKey(key, "/api/credits/history")).json();
    expect(history.data.map((e: { type: string; amount: number; balanceAfter: number; jobId: string | null }) => [e.type, e.amount, e.balanceAfter, e.jobId])).toEqual([
      ["refund", 2, 100, job.jobId],
      ["charge", -2, 98, job.jobId],
      ["grant", 100, 100, null],
    ]);
    const balance = await (await dev.withKey(key, "/api/credits/balance")).json();
    expect(balance.balance).toBe(100);
  });

  it("counts a refunded job as a failed job that used no credits", async () => {
    const metrics = await (await dev.withKey(key, "/api/developers/metrics")).json();
    expect(metrics).toMatchObject({ totalJobs: 1, failedJobs: 1, completedJobs: 0, activeJobs: 0, creditsUsed: 0, successRate: 0 });
    expect(metrics.byService).toEqual([{ serviceId: "text-summarize", jobs: 1, completed: 0, failed: 1, creditsUsed: 0 }]);
  });
});
