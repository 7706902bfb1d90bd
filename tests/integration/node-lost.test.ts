import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueNodeToken } from "@/lib/network/coordinator";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { eventually, getJob, submit, telemetry, typesOf, waitForStatus } from "../support/jobs";
import { startNodeProcess, type Child } from "../support/processes";
import { expectError } from "../support/expect-error";
import { withDeveloper } from "../support/with-developer";

let llm: OpenAiCompatibleServer;
const children: Child[] = [];
const llmEnv = () => ({ LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "sk-test", LLM_MODEL: "test-model" });

beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ apiKey: "sk-test" });
});
afterAll(() => llm.close());
// Standalone nodes only, with a short lease so a dead node is noticed quickly. (A stopping node sends one
// last heartbeat and then none while it finishes its jobs, so the lease must outlast the draining test's
// 2-second job; reported on issue 15 as an agent defect.)
const ctx = withDeveloper(() => ({ embeddedNodes: 0, env: { ...llmEnv(), NODE_LEASE_MS: "4000" } }));
afterAll(() => Promise.all(children.map((c) => c.kill())));

const liveNodes = async () =>
  ((await (await fetch(`${ctx.server.baseUrl}/api/health`)).json()) as { nodes: number }).nodes;

async function node(name: string, graceMs = 100) {
  const { token } = await issueNodeToken(name, { region: "test" });
  const child = await startNodeProcess(
    ctx.server.baseUrl,
    token,
    ["--name", name, "--concurrency", "2", "--grace-ms", String(graceMs)],
    llmEnv(),
  );
  children.push(child);
  return child;
}

describe("execution nodes", () => {
  it("a node killed mid-job loses it (NODE_LOST); another node completes it as attempt 2", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const first = await node("node-a");
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "long task" });
    const running = await waitForStatus(ctx.dev, ctx.key, job.jobId, ["running"]);
    expect(running.assignedNode?.name).toBe("node-a");

    await first.kill("SIGKILL");
    llm.behave({ reply: "normal" });
    await node("node-b");
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 2, progress: 100 });
    expect(done.assignedNode?.name).toBe("node-b");
    const events = await telemetry(ctx.dev, ctx.key, job.jobId);
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
    llm.behave({ reply: "slow", delayMs: 2_000 });
    const graceful = await node("node-graceful", 30_000);
    await eventually(liveNodes, (n) => n === 1);
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "finish me" });
    const running = await waitForStatus(ctx.dev, ctx.key, job.jobId, ["running"]);
    expect(running.assignedNode?.name).toBe("node-graceful");

    const exited = graceful.kill("SIGTERM"); // resolves when the process has exited
    // Once it has drained (no longer counted as live), work submitted meanwhile is not claimed by it.
    await eventually(liveNodes, (n) => n === 0);
    const later = await submit(ctx.dev, ctx.key, "token-count", { text: "submitted during the drain" });
    await exited;
    expect(await getJob(ctx.dev, ctx.key, job.jobId)).toMatchObject({ status: "completed", attempt: 1 });
    expect(await getJob(ctx.dev, ctx.key, later.jobId)).toMatchObject({
      status: "routing",
      assignedNode: null,
      attempt: 0,
    });

    llm.behave({ reply: "normal" });
    await node("node-c");
    expect(await waitForStatus(ctx.dev, ctx.key, later.jobId)).toMatchObject({
      status: "completed",
      assignedNode: { name: "node-c" },
    });
  });

  it("a node stopped with SIGTERM past its grace period releases the job, which another node completes", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    await Promise.all(children.splice(0).map((c) => c.kill("SIGTERM")));
    const impatient = await node("node-impatient", 50);
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "release me" });
    await waitForStatus(ctx.dev, ctx.key, job.jobId, ["running"]);
    await impatient.kill("SIGTERM");
    llm.behave({ reply: "normal" });
    await node("node-d");
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(done).toMatchObject({ status: "completed", attempt: 2 });
    expect(done.assignedNode?.name).toBe("node-d");
    // Released by the node, not recovered after its lease ran out.
    const events = await telemetry(ctx.dev, ctx.key, job.jobId);
    expect(typesOf(events)).not.toContain("NODE_LOST");
    const rerouted = events.filter((e) => e.type === "ROUTING_STARTED");
    expect(rerouted).toHaveLength(2);
    expect(rerouted[1]).toMatchObject({
      attempt: 1,
      data: { attempt: 2, releasedBy: expect.any(String), reason: "node shutting down" },
    });
  });

  it("refuses a report from a node that does not hold the running job: 409 LEASE_LOST, the job untouched", async () => {
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const job = await submit(ctx.dev, ctx.key, "text-generate", { prompt: "held by node-d" });
    const running = await waitForStatus(ctx.dev, ctx.key, job.jobId, ["running"]);
    expect(running.assignedNode?.name).toBe("node-d");
    const { token } = await issueNodeToken("node-intruder", { region: "test" });
    for (const [report, body] of [
      ["progress", { attempt: 1, progress: 50 }],
      ["complete", { attempt: 1, result: { summary: "forged", output: {} } }],
    ] as const) {
      const res = await fetch(`${ctx.server.baseUrl}/api/nodes/jobs/${job.jobId}/${report}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      await expectError(res, 409, "LEASE_LOST");
    }
    const after = await getJob(ctx.dev, ctx.key, job.jobId);
    expect(after).toMatchObject({
      status: "running",
      attempt: 1,
      assignedNode: running.assignedNode,
      result: null,
      error: null,
    });
    expect(after.progress).toBeLessThan(50);
    llm.behave({ reply: "normal" });
    await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" });
  });

  it("reports the live node count on /api/health", async () => {
    const health = await eventually(
      async () => (await fetch(`${ctx.server.baseUrl}/api/health`)).json() as Promise<{ nodes: number }>,
      (h) => h.nodes >= 1,
    );
    expect(health).toMatchObject({ status: "ok", database: "ok" });
  });

  it("answers a node's bad reports with clear 4xx errors, never a 500", async () => {
    const { token } = await issueNodeToken("node-strict", { region: "test" });
    const post = (path: string, body: unknown) =>
      fetch(`${ctx.server.baseUrl}/api/nodes/${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const codeOf = async (res: Response) => [
      res.status,
      ((await res.json()) as { error: { code: string } }).error.code,
    ];
    expect(await codeOf(await post("register", { name: "", serviceIds: [], concurrency: 0 }))).toEqual([
      400,
      "INVALID_REQUEST",
    ]);
    expect(await codeOf(await post("claim", "{not json"))).toEqual([400, "INVALID_REQUEST"]);
    expect(await codeOf(await post("jobs/not-a-uuid/start", { attempt: 1 }))).toEqual([409, "LEASE_LOST"]);
    // A job this node does not hold: its report is refused, the job is untouched.
    const job = await submit(ctx.dev, ctx.key, "token-count", { text: "held by someone else" });
    const done = await waitForStatus(ctx.dev, ctx.key, job.jobId);
    expect(
      await codeOf(await post(`jobs/${job.jobId}/complete`, { attempt: 1, result: { summary: "forged", output: {} } })),
    ).toEqual([409, "LEASE_LOST"]);
    expect(await getJob(ctx.dev, ctx.key, job.jobId)).toEqual(done);
  });

  it("refuses node routes without a valid node token", async () => {
    const res = await fetch(`${ctx.server.baseUrl}/api/nodes/claim`, {
      method: "POST",
      headers: { authorization: "Bearer node_nope", "content-type": "application/json" },
      body: JSON.stringify({ max: 1 }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("INVALID_NODE_TOKEN");
    const job = await submit(ctx.dev, ctx.key, "token-count", { text: "x" });
    expect((await getJob(ctx.dev, ctx.key, job.jobId)).jobId).toBe(job.jobId);
  });
});
