// The SDK against the real server: real route handlers, a fresh database, an embedded execution node,
// and a local OpenAI-compatible endpoint that stalls (so a text-generate job stays running until cancelled).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { services as servicesTable } from "@/lib/db/schema";
import { grantCreditsToAddress } from "@/lib/domain/credits";
import { db } from "@/lib/domain/database";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import {
  ExecutionApiError,
  ExecutionClient,
  JobWaitTimeoutError,
  type ExecutionJob,
  type FetchLike,
  type JobStreamEvent,
} from "@/lib/client/src/index";
import { signUpDeveloper, type Developer } from "../support/developer";
import { startTestServer, type TestServer } from "../support/test-server";

let llm: OpenAiCompatibleServer;
let server: TestServer;
let dev: Developer;
let client: ExecutionClient;
const startedAt = new Date(Date.now() - 60_000);

/** A valid 1×1 PNG: image-ocr's input passes its checks, so the balance is what refuses it. */
const onePixelPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ behaviour: { reply: "slow", delayMs: 120_000 } });
  // Starter credits below image-ocr's cost (5), so a fresh developer meets INSUFFICIENT_CREDITS.
  server = await startTestServer({
    env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "sk-test", LLM_MODEL: "gpt-4o-mini", STARTER_CREDITS: "4" },
  });
  dev = await signUpDeveloper(server.baseUrl);
  await grantCreditsToAddress(dev.address, 200, "Test grant");
  client = new ExecutionClient({ apiKey: await dev.createApiKey(), baseUrl: server.baseUrl });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await llm?.close();
});

const fast = { intervalMs: 100, timeoutMs: 60_000 };

async function apiErrorOf(promise: Promise<unknown>): Promise<ExecutionApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExecutionApiError);
  return error as ExecutionApiError;
}

async function collect(events: AsyncIterable<JobStreamEvent>): Promise<JobStreamEvent[]> {
  const seen: JobStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("the client against the real server", () => {
  let completed: ExecutionJob;

  it("lists the services", async () => {
    const services = await client.listServices();
    expect(services.map((s) => s.serviceId)).toEqual(
      expect.arrayContaining([
        "text-sentiment",
        "text-summarize",
        "language-detect",
        "token-count",
        "image-ocr",
        "text-generate",
      ]),
    );
    expect(services.find((s) => s.serviceId === "token-count")).toMatchObject({
      status: "active",
      creditCost: 1,
      inputSchema: expect.any(Object),
    });
  });

  it("executes token-count and waits for its result", async () => {
    const job = await client.execute("token-count", { text: "The quick brown fox jumps over the lazy dog." });
    expect(job).toMatchObject({ serviceId: "token-count", status: "queued", progress: 0, result: null });
    const updates: string[] = [];
    completed = await client.waitForJob(job.jobId, { ...fast, onUpdate: (j) => updates.push(j.status) });
    expect(completed).toMatchObject({
      jobId: job.jobId,
      workflowRunId: job.workflowRunId,
      status: "completed",
      progress: 100,
    });
    expect(completed.result?.output).toMatchObject({ tokens: expect.any(Number) });
    expect(updates.at(-1)).toBe("completed");
  });

  it("creates a job through createJob, the same way", async () => {
    const job = await client.createJob({
      type: "developer_job",
      payload: { serviceId: "language-detect", input: { text: "Ceci est une phrase en français, sans aucun doute." } },
    });
    const done = await client.waitForJob(job.jobId, fast);
    expect(done).toMatchObject({ serviceId: "language-detect", status: "completed" });
  });

  it("reads the job, its logs and its telemetry, page by page and all at once", async () => {
    await expect(client.getJob(completed.jobId)).resolves.toEqual(completed);

    const logs = await client.getJobLogs(completed.jobId);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.map((l) => l.sequence)).toEqual([...logs.map((l) => l.sequence)].sort((a, b) => a - b));
    const lineByLine = [];
    for await (const line of client.listJobLogs(completed.jobId, { limit: 1 })) lineByLine.push(line);
    expect(lineByLine).toEqual(logs);

    const firstPage = await client.getJobTelemetry(completed.jobId, { page: 1, limit: 2 });
    expect(firstPage.data.map((e) => e.sequence)).toEqual([1, 2]);
    expect(firstPage.pagination).toMatchObject({ page: 1, limit: 2, hasMore: true });

    const all = [];
    for await (const event of client.iterateJobTelemetry(completed.jobId, { limit: 2 })) all.push(event);
    expect(all).toHaveLength(firstPage.pagination.total);
    expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
    expect(all[0]?.type).toBe("JOB_CREATED");
    expect(all.at(-1)?.type).toBe("EXECUTION_COMPLETED");
  });

  it("streams a live job's events until its final state", async () => {
    const job = await client.execute("text-summarize", {
      text: "Execution is asynchronous. Jobs are durable. Telemetry explains progress. Results come last.",
      sentences: 2,
    });
    const events = await collect(client.streamJobEvents(job.jobId));
    const telemetry = events.flatMap((e) => (e.type === "telemetry" ? [e] : []));
    expect(telemetry.map((e) => e.event.sequence)).toEqual(telemetry.map((_, i) => i + 1));
    expect(telemetry.map((e) => e.id)).toEqual(telemetry.map((e) => String(e.event.sequence)));
    expect(telemetry.map((e) => e.event.type)).toEqual(expect.arrayContaining(["JOB_CREATED", "EXECUTION_COMPLETED"]));
    const last = events.at(-1);
    expect(last?.type === "status" && last.job.status).toBe("completed");
  });

  it("resumes a stream after a given event id", async () => {
    const events = await collect(client.streamJobEvents(completed.jobId, { lastEventId: "3" }));
    const sequences = events.flatMap((e) => (e.type === "telemetry" ? [e.event.sequence] : []));
    expect(sequences[0]).toBe(4);
    expect(events.at(-1)).toMatchObject({ type: "status", job: { status: "completed" } });
  });

  it("lists jobs with filters and dates in every accepted form, and iterates every page", async () => {
    const filters = {
      serviceId: "token-count",
      status: "completed",
      dateFrom: startedAt,
      dateTo: Date.now() + 60_000,
    } as const;
    const page = await client.listJobs({ ...filters, limit: 1 });
    expect(page.data.map((j) => j.jobId)).toEqual([completed.jobId]);
    expect(page.pagination).toMatchObject({ page: 1, limit: 1, total: 1, hasMore: false });

    const everything = await client.listJobs({ dateFrom: startedAt.toISOString(), limit: 100 });
    const iterated: string[] = [];
    for await (const job of client.iterateJobs({ dateFrom: startedAt.getTime(), limit: 1 })) iterated.push(job.jobId);
    expect(iterated).toEqual(everything.data.map((j) => j.jobId));
    expect(iterated.length).toBe(everything.pagination.total);

    await expect(client.listJobs({ dateFrom: Date.now() + 3_600_000 })).resolves.toMatchObject({
      data: [],
      pagination: { total: 0 },
    });
  });

  it("an idempotency key makes a repeated submission a replay, and a different one a conflict", async () => {
    const input = { text: "idempotent" };
    const first = await client.execute("token-count", input, { idempotencyKey: "e2e-intent-1" });
    const replay = await client.execute("token-count", input, { idempotencyKey: "e2e-intent-1" });
    expect(replay.jobId).toBe(first.jobId);
    const conflict = await apiErrorOf(
      client.execute("token-count", { text: "something else" }, { idempotencyKey: "e2e-intent-1" }),
    );
    expect(conflict).toMatchObject({ status: 409, code: "IDEMPOTENCY_CONFLICT" });
  });

  it("a submission whose response is lost is retried with its generated key: one job, one charge", async () => {
    let lost = false;
    // The server handles the first POST, then the answer "never arrives".
    const losingFetch: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (init.method === "POST" && !lost) {
        lost = true;
        await response.text();
        throw new TypeError("fetch failed", { cause: new Error("socket hang up") });
      }
      return response;
    };
    const flaky = new ExecutionClient({
      apiKey: await dev.createApiKey(),
      baseUrl: server.baseUrl,
      fetch: losingFetch,
    });
    const before = (await client.listJobs({ serviceId: "token-count" })).pagination.total;
    const job = await flaky.execute("token-count", { text: "lost response" });
    expect(lost).toBe(true);
    expect((await client.listJobs({ serviceId: "token-count" })).pagination.total).toBe(before + 1);
    const charges = [];
    for await (const entry of client.iterateCreditHistory()) if (entry.jobId === job.jobId) charges.push(entry.type);
    expect(charges).toEqual(["charge"]);
  });

  it("waitForJob gives up at its deadline with the last state, and cancelJob stops a running job", async () => {
    const job = await client.execute("text-generate", { prompt: "Write a long story." });
    // Follow the live stream until the job is running on the node (the LLM endpoint stalls), then stop listening.
    for await (const event of client.streamJobEvents(job.jobId))
      if (event.type === "status" && event.job.status === "running") break;

    const timeout = await client.waitForJob(job.jobId, { intervalMs: 50, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(timeout).toBeInstanceOf(JobWaitTimeoutError);
    expect((timeout as JobWaitTimeoutError).job).toMatchObject({ jobId: job.jobId, status: "running" });

    const cancelled = await client.cancelJob(job.jobId);
    expect(cancelled).toMatchObject({ status: "failed", error: { code: "CANCELLED" } });
    await expect(client.waitForJob(job.jobId, fast)).resolves.toMatchObject({ status: "failed" });
    const types = [];
    for await (const event of client.iterateJobTelemetry(job.jobId)) types.push(event.type);
    expect(types).toContain("JOB_CANCELLED");

    const again = await apiErrorOf(client.cancelJob(job.jobId));
    expect(again).toMatchObject({ status: 409, code: "JOB_FINAL" });
    const entries = (await client.getCreditHistory({ limit: 100 })).data.filter((e) => e.jobId === job.jobId);
    expect(entries.map((e) => e.type).sort()).toEqual(["charge", "refund"]);
  });

  it("reports usage and metrics for the period", async () => {
    const period = { periodStart: startedAt, periodEnd: new Date(Date.now() + 60_000).toISOString() };
    const usage = await client.getUsageSummary(period);
    const jobs = await client.listJobs({ dateFrom: period.periodStart, dateTo: period.periodEnd });
    expect(usage.totalJobs).toBe(jobs.pagination.total);
    expect(usage.completedJobs + usage.failedJobs + usage.activeJobs).toBe(usage.totalJobs);
    expect(usage.failedJobs).toBe(1);
    expect(usage.byService.map((s) => s.serviceId)).toEqual(expect.arrayContaining(["token-count", "text-generate"]));
    expect(usage.successRate).toBeCloseTo(usage.completedJobs / (usage.completedJobs + usage.failedJobs));

    const metrics = await client.getMetrics();
    expect(metrics).toMatchObject({ totalJobs: usage.totalJobs, creditsUsed: usage.creditsUsed });
  });

  it("reads the credit balance and a history that adds up to it", async () => {
    const { balance, currency } = await client.getCreditBalance();
    expect(currency).toBe("credits");
    const newest = await client.getCreditHistory({ page: 1, limit: 1 });
    expect(newest.data[0]?.balanceAfter).toBe(balance);
    let sum = 0;
    let count = 0;
    for await (const entry of client.iterateCreditHistory({ limit: 3 })) {
      sum += entry.amount;
      count++;
    }
    expect(count).toBe(newest.pagination.total);
    expect(sum).toBe(balance);
  });

  it("reaches routes it does not wrap through request()", async () => {
    await expect(client.request({ method: "GET", path: "/api/health" })).resolves.toMatchObject({ status: "ok" });
  });
});

describe("the README", () => {
  it("has examples that run against the real server", async () => {
    const repo = path.resolve(__dirname, "../..");
    const readme = await readFile(path.join(repo, "lib/client/README.md"), "utf8");
    // Every `ts` block runs; one that needs what a test server lacks (a funded wallet) is fenced `ts no-run`.
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    const dir = await mkdtemp(path.join(tmpdir(), "en-client-readme-"));
    try {
      // The package name resolves to the source, so the examples run without a build.
      await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
      const paths = { "@execution-network/client": [path.join(repo, "lib/client/src/index.ts")] };
      await writeFile(
        path.join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", paths } }),
      );
      const env = {
        ...process.env,
        EXECUTION_NETWORK_API_KEY: await dev.createApiKey(),
        EXECUTION_BASE_URL: server.baseUrl,
      };
      const outputs: string[] = [];
      for (const [i, code] of examples.entries()) {
        const file = path.join(dir, `example-${i}.ts`);
        await writeFile(file, code);
        // Asynchronous: the server lives in this process and must keep answering.
        const { stdout } = await promisify(execFile)(path.join(repo, "node_modules/.bin/tsx"), [file], {
          cwd: dir,
          env,
          timeout: 60_000,
        });
        outputs.push(stdout);
      }
      expect(outputs.join("\n")).toContain("submitted");
      expect(outputs.join("\n")).toContain("receipt verified");
      expect(outputs.some((o) => o.trim() === "true")).toBe(true); // the idempotent replay returned the same job
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("error mapping of the real server", () => {
  it("INVALID_API_KEY", async () => {
    const stranger = new ExecutionClient({ apiKey: `dev_${"x".repeat(40)}`, baseUrl: server.baseUrl });
    const error = await apiErrorOf(stranger.execute("token-count", { text: "x" }));
    expect(error).toMatchObject({ status: 401, code: "INVALID_API_KEY", retryAfterSeconds: null });
    expect(error.requestId).toMatch(/\S/);
    expect(error.response).toMatchObject({ error: { code: "INVALID_API_KEY", requestId: error.requestId } });
    expect(error.headers["x-request-id"]).toBe(error.requestId);
  });

  it("INSUFFICIENT_SCOPE, naming the scope each route needs", async () => {
    const readOnly = new ExecutionClient({ apiKey: await dev.createApiKey(["jobs:read"]), baseUrl: server.baseUrl });
    expect(await apiErrorOf(readOnly.execute("token-count", { text: "x" }))).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_SCOPE",
      details: { requiredScope: "services:execute" },
    });
    const jobs = await readOnly.listJobs();
    const jobId = jobs.data[0]?.jobId ?? "";
    expect(await apiErrorOf(readOnly.getJobTelemetry(jobId))).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
      details: { requiredScope: "telemetry:read" },
    });
    expect(await apiErrorOf(readOnly.getCreditBalance())).toMatchObject({
      code: "INSUFFICIENT_SCOPE",
      details: { requiredScope: "credits:read" },
    });
  });

  it("INSUFFICIENT_CREDITS", async () => {
    const broke = await signUpDeveloper(server.baseUrl);
    const brokeClient = new ExecutionClient({ apiKey: await broke.createApiKey(), baseUrl: server.baseUrl });
    expect(await apiErrorOf(brokeClient.execute("image-ocr", { image: onePixelPng }))).toMatchObject({
      status: 402,
      code: "INSUFFICIENT_CREDITS",
    });
    await expect(brokeClient.getCreditBalance()).resolves.toMatchObject({ balance: 4 });
  });

  it("SERVICE_NOT_FOUND and JOB_NOT_FOUND (someone else's job is not found either)", async () => {
    expect(await apiErrorOf(client.execute("no-such-service", { text: "x" }))).toMatchObject({
      status: 404,
      code: "SERVICE_NOT_FOUND",
    });
    expect(await apiErrorOf(client.getJob("00000000-0000-4000-8000-000000000000"))).toMatchObject({
      status: 404,
      code: "JOB_NOT_FOUND",
    });
    const other = await signUpDeveloper(server.baseUrl);
    const otherClient = new ExecutionClient({ apiKey: await other.createApiKey(), baseUrl: server.baseUrl });
    const [mine] = (await client.listJobs({ limit: 1 })).data;
    expect(await apiErrorOf(otherClient.getJob(mine?.jobId ?? ""))).toMatchObject({
      status: 404,
      code: "JOB_NOT_FOUND",
    });
  });

  it("SERVICE_DISABLED", async () => {
    // No API disables a service; an operator does, in the catalog table.
    const database = await db();
    await database.update(servicesTable).set({ status: "disabled" }).where(eq(servicesTable.id, "text-sentiment"));
    try {
      expect(await apiErrorOf(client.execute("text-sentiment", { text: "great" }))).toMatchObject({
        status: 409,
        code: "SERVICE_DISABLED",
      });
    } finally {
      await database.update(servicesTable).set({ status: "active" }).where(eq(servicesTable.id, "text-sentiment"));
    }
  });

  it("INVALID_SERVICE_INPUT, with the issues", async () => {
    const error = await apiErrorOf(client.execute("text-summarize", { text: "", sentences: 99 }));
    expect(error).toMatchObject({ status: 422, code: "INVALID_SERVICE_INPUT" });
    expect(error.details?.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "text" }),
        expect.objectContaining({ path: "sentences" }),
      ]),
    );
  });

  it("IDEMPOTENCY_CONFLICT through createJob too", async () => {
    const payload = { serviceId: "token-count", input: { text: "one" } };
    await client.createJob({ type: "developer_job", payload }, { idempotencyKey: "e2e-intent-2" });
    expect(
      await apiErrorOf(
        client.createJob(
          { type: "developer_job", payload: { ...payload, input: { text: "two" } } },
          { idempotencyKey: "e2e-intent-2" },
        ),
      ),
    ).toMatchObject({ status: 409, code: "IDEMPOTENCY_CONFLICT" });
  });
});
