import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit, waitForStatus, type JobView } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";
import { expectError } from "../support/expect-error";

let server: TestServer;
let alice: Developer;
let bob: Developer;
let aliceKey: string;
let bobKey: string;
let aliceJobs: JobView[];
let bobJob: JobView;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 1 });
  [alice, bob] = await Promise.all([
    signUpDeveloper(server.baseUrl, { name: "Alice" }),
    signUpDeveloper(server.baseUrl, { name: "Bob" }),
  ]);
  [aliceKey, bobKey] = await Promise.all([alice.createApiKey(), bob.createApiKey()]);
  // Alice: a completed sentiment (1 credit) and a completed summary (2 credits); Bob: one token count.
  aliceJobs = [
    await submit(alice, aliceKey, "text-sentiment", { text: "Alice is delighted." }),
    await submit(alice, aliceKey, "text-summarize", { text: "Alice writes. Alice reads. Alice sleeps." }),
  ];
  bobJob = await submit(bob, bobKey, "token-count", { text: "Bob counts." });
  for (const job of aliceJobs) await waitForStatus(alice, aliceKey, job.jobId);
  await waitForStatus(bob, bobKey, bobJob.jobId);
});
afterAll(() => server.close());

const jobRoutes: [string, (jobId: string) => [string, RequestInit]][] = [
  ["detail", (id) => [`/api/developers/jobs/${id}`, {}]],
  ["logs", (id) => [`/api/developers/jobs/${id}/logs`, {}]],
  ["telemetry", (id) => [`/api/developers/jobs/${id}/telemetry`, {}]],
  ["events", (id) => [`/api/developers/jobs/${id}/events`, {}]],
  ["cancel", (id) => [`/api/developers/jobs/${id}/cancel`, { method: "POST" }]],
];

describe("another developer's job does not exist for you", () => {
  it.each(jobRoutes)("%s of Alice's job through Bob's key is 404 JOB_NOT_FOUND", async (_, route) => {
    const [path, init] = route(aliceJobs[0].jobId);
    await expectError(await bob.withKey(bobKey, path, init), 404, "JOB_NOT_FOUND");
  });

  it.each(jobRoutes)("%s of Alice's job through Bob's wallet session is 404 JOB_NOT_FOUND", async (_, route) => {
    const [path, init] = route(aliceJobs[0].jobId);
    await expectError(await bob.session(path, init), 404, "JOB_NOT_FOUND");
  });

  it("answers exactly as for a job that never existed", async () => {
    const foreign = await bob.withKey(bobKey, `/api/developers/jobs/${aliceJobs[0].jobId}`);
    const missing = await bob.withKey(bobKey, `/api/developers/jobs/${crypto.randomUUID()}`);
    expect(foreign.status).toBe(missing.status);
    expect((await foreign.json()).error.message).toBe((await missing.json()).error.message);
  });
});

describe("lists, credits and metrics are per developer", () => {
  it("Bob's job list holds only Bob's job", async () => {
    const list = await (await bob.withKey(bobKey, "/api/developers/jobs")).json();
    expect(list.data.map((j: JobView) => j.jobId)).toEqual([bobJob.jobId]);
    expect(list.pagination.total).toBe(1);
    const filtered = await (await bob.withKey(bobKey, "/api/developers/jobs?serviceId=text-sentiment")).json();
    expect(filtered.data).toEqual([]);
  });

  it("Alice's job list holds only Alice's jobs, newest first", async () => {
    const list = await (await alice.session("/api/developers/jobs")).json();
    expect(list.data.map((j: JobView) => j.jobId)).toEqual([aliceJobs[1].jobId, aliceJobs[0].jobId]);
  });

  it("balances move independently", async () => {
    const aliceBalance = await (await alice.withKey(aliceKey, "/api/credits/balance")).json();
    const bobBalance = await (await bob.withKey(bobKey, "/api/credits/balance")).json();
    expect(aliceBalance.balance).toBe(100 - 1 - 2);
    expect(bobBalance.balance).toBe(100 - 1);
  });

  it("Bob's credit history holds no entry of Alice's jobs", async () => {
    const history = await (await bob.withKey(bobKey, "/api/credits/history")).json();
    expect(history.data.map((e: { type: string; jobId: string | null }) => [e.type, e.jobId])).toEqual([
      ["charge", bobJob.jobId],
      ["grant", null],
    ]);
  });

  it("Bob's metrics count only Bob's job and credits", async () => {
    const metrics = await (await bob.withKey(bobKey, "/api/developers/metrics")).json();
    expect(metrics).toMatchObject({
      totalJobs: 1,
      completedJobs: 1,
      failedJobs: 0,
      activeJobs: 0,
      creditsUsed: 1,
      successRate: 1,
    });
    expect(metrics.byService).toEqual([{ serviceId: "token-count", jobs: 1, completed: 1, failed: 0, creditsUsed: 1 }]);
  });

  it("Alice's metrics count only Alice's jobs and credits", async () => {
    const metrics = await (await alice.session("/api/developers/metrics")).json();
    expect(metrics).toMatchObject({ totalJobs: 2, completedJobs: 2, failedJobs: 0, creditsUsed: 3 });
    expect(metrics.byService.map((s: { serviceId: string }) => s.serviceId).sort()).toEqual([
      "text-sentiment",
      "text-summarize",
    ]);
  });
});
