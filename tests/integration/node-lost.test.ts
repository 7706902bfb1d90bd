import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueNodeToken } from "@/lib/network/coordinator";
import { startOpenAiCompatibleServer, type OpenAiCompatibleServer } from "@/lib/network/providers/testing/openai-compatible-server";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, getJob, submit, telemetry, typesOf, waitForStatus } from "../support/jobs";
import { startNodeProcess, type Child } from "../support/processes";
import { startTestServer, type TestServer } from "../support/test-server";

let llm: OpenAiCompatibleServer;
let server: TestServer;
let dev: Developer;
let key: string;
const children: Child[] = [];
const llmEnv = () => ({ LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "sk-test", LLM_MODEL: "test-model" });

beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ apiKey: "sk-test" });
  // Standalone nodes only, with a short lease so a dead node is noticed quickly.
  server = await startTestServer({ embeddedNodes: 0, env: { ...llmEnv(), NODE_LEASE_MS: "600" } });
  dev = await signUpDeveloper(server.baseUrl);
  key = await dev.createApiKey();
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await server.close();
  await llm.close();
});

async function node(name: string, graceMs = 100) {
  const { token } = await issueNodeToken(name, { region: "test" });
  const child = await startNodeProcess(server.baseUrl, token, ["--name", name, "--concurrency", "2", "--grace-ms", String(graceMs)], llmEnv());
  children.push(child);
  return child;
}

describe("execution nodes", () => {
  it("a node killed mid-job loses it (NODE_LOST); another node completes it as attempt 2", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const first = await node("node-a");
    const job = await submit(dev, key, "text-generate", { prompt: "long task" });
    const running = await waitForStatus(dev, key, job.jobId, ["running"]);
    expect(running.assignedNode?.name).toBe("node-a");

    await first.kill("SIGKILL");
    llm.behave({ reply: "normal" });
    await node("node-b");
    const done = await waitForStatus(dev, key, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 2, progress: 100 });
    expect(done.assignedNode?.name).toBe("node-b");
    const events = await telemetry(dev, key, job.jobId);
    expect(typesOf(events)).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "NODE_LOST",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "RESULT_STORED",
      "EXECUTION_COMPLETED",
    ]);
    expect(events.filter((e) => e.type === "EXECUTION_COMPLETED")).toHaveLength(1);
    expect(events.find((e) => e.type === "NODE_LOST")?.attempt).toBe(1);
  });

  it("a node stopped with SIGTERM stops claiming but finishes its running job before exiting", async () => {
    await Promise.all(children.splice(0).map((c) => c.kill("SIGTERM")));
    llm.behave({ reply: "slow", delayMs: 500 });
    const graceful = await node("node-graceful", 30_000);
    const job = await submit(dev, key, "text-generate", { prompt: "finish me" });
    const running = await waitForStatus(dev, key, job.jobId, ["running"]);
    expect(running.assignedNode?.name).toBe("node-graceful");
    await graceful.kill("SIGTERM"); // resolves when the process has exited
    const done = await getJob(dev, key, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 1 });
    llm.behave({ reply: "normal" });
    await node("node-c");
  });

  it("a node stopped with SIGTERM past its grace period releases the job, which another node completes", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    await Promise.all(children.splice(0).map((c) => c.kill("SIGTERM")));
    const impatient = await node("node-impatient", 50);
    const job = await submit(dev, key, "text-generate", { prompt: "release me" });
    await waitForStatus(dev, key, job.jobId, ["running"]);
    await impatient.kill("SIGTERM");
    llm.behave({ reply: "normal" });
    await node("node-d");
    const done = await waitForStatus(dev, key, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 2 });
    expect(done.assignedNode?.name).toBe("node-d");
  });

  it("reports the live node count on /api/health", async () => {
    const health = await eventually(
      async () => (await fetch(`${server.baseUrl}/api/health`)).json() as Promise<{ nodes: number }>,
      (h) => h.nodes >= 1,
    );
    expect(health).toMatchObject({ status: "ok", database: "ok" });
  });

  it("answers a node's bad reports with clear 4xx errors, never a 500", async () => {
    const { token } = await issueNodeToken("node-strict", { region: "test" });
    const post = (path: string, body: unknown) =>
      fetch(`${server.baseUrl}/api/nodes/${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const codeOf = async (res: Response) => [res.status, ((await res.json()) as { error: { code: string } }).error.code];
    expect(await codeOf(await post("register", { name: "", serviceIds: [], concurrency: 0 }))).toEqual([400, "INVALID_REQUEST"]);
    expect(await codeOf(await post("claim", "{not json"))).toEqual([400, "INVALID_REQUEST"]);
    expect(await codeOf(await post("jobs/not-a-uuid/start", { attempt: 1 }))).toEqual([404, "JOB_NOT_FOUND"]);
    // A job this node does not hold: its report is refused, the job is untouched.
    const job = await submit(dev, key, "token-count", { text: "held by someone else" });
    const done = await waitForStatus(dev, key, job.jobId);
    expect(await codeOf(await post(`jobs/${job.jobId}/complete`, { attempt: 1, result: { summary: "forged", output: {} } }))).toEqual([409, "JOB_FINAL"]);
    expect(await getJob(dev, key, job.jobId)).toEqual(done);
  });

  it("refuses node routes without a valid node token", async () => {
    const res = await fetch(`${server.baseUrl}/api/nodes/claim`, {
      method: "POST",
      headers: { authorization: "Bearer node_nope", "content-type": "application/json" },
      body: JSON.stringify({ max: 1 }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("INVALID_NODE_TOKEN");
    const job = await submit(dev, key, "token-count", { text: "x" });
    expect((await getJob(dev, key, job.jobId)).jobId).toBe(job.jobId);
  });
});
