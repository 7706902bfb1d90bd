// Fault: a standalone execution node is killed (SIGKILL) while it runs jobs. Its lease runs out, the jobs
// go back to routing and another node finishes every one of them, each charged once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueNodeToken } from "@/lib/network/coordinator";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { signUpDeveloper } from "../support/developer";
import { eventually, getJob, submit, type JobView } from "../support/jobs";
import { startNodeProcess, type Child } from "../support/processes";
import { startTestServer, type TestServer } from "../support/test-server";
import { createPrivatePostgres, type PrivatePostgres } from "./private-postgres";
import { auditPostgres, expectCleanAudit, faultPorts, scratchDatabase } from "./support";

let postgres: PrivatePostgres;
let database: { url: string; drop(): Promise<void> };
let llm: OpenAiCompatibleServer;
let server: TestServer;
const children: Child[] = [];
const llmEnv = () => ({ LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "sk-test", LLM_MODEL: "test-model" });

beforeAll(async () => {
  postgres = await createPrivatePostgres(faultPorts.nodeKill.postgres);
  database = await scratchDatabase(postgres.adminUrl);
  llm = await startOpenAiCompatibleServer({ apiKey: "sk-test" });
  server = await startTestServer({
    databaseUrl: database.url,
    embeddedNodes: 0,
    env: { ...llmEnv(), NODE_LEASE_MS: "800", STARTER_CREDITS: "10000", RATE_LIMIT_PER_MINUTE: "0" },
  });
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await server?.close();
  await llm?.close();
  await database?.drop();
  await postgres?.destroy();
});

async function startNode(name: string) {
  const { token } = await issueNodeToken(name, { region: "test" });
  const child = await startNodeProcess(
    server.baseUrl,
    token,
    ["--name", name, "--concurrency", "2", "--grace-ms", "100"],
    llmEnv(),
  );
  children.push(child);
  return child;
}

describe("fault: kill -9 a standalone node mid-job", () => {
  it("every job the dead node held finishes on another node, once, and the data audits clean", async () => {
    llm.behave({ reply: "slow", delayMs: 1_500 });
    const doomed = await startNode("node-doomed");
    const dev = await signUpDeveloper(server.baseUrl);
    const key = await dev.createApiKey();
    const jobs: JobView[] = [];
    for (let i = 0; i < 6; i++) jobs.push(await submit(dev, key, "text-generate", { prompt: `fault job ${i}` }));

    // The only node picks up work; kill it while it holds running jobs.
    const held = await eventually(
      async () => Promise.all(jobs.map((j) => getJob(dev, key, j.jobId))),
      (views) => views.some((v) => v.status === "running" && v.assignedNode?.name === "node-doomed"),
    );
    const lost = held
      .filter((v) => v.assignedNode?.name === "node-doomed" && v.status !== "completed")
      .map((v) => v.jobId);
    await doomed.kill("SIGKILL");
    await startNode("node-survivor");

    const finished = await eventually(
      async () => Promise.all(jobs.map((j) => getJob(dev, key, j.jobId))),
      (views) => views.every((v) => v.status === "completed" || v.status === "failed"),
      120_000,
    );
    expect(finished.map((v) => v.status)).toEqual(jobs.map(() => "completed"));
    expect(lost.length).toBeGreaterThan(0);
    for (const view of finished.filter((v) => lost.includes(v.jobId))) {
      expect(view.assignedNode?.name).toBe("node-survivor");
      expect(view.attempt).toBeGreaterThanOrEqual(2);
    }
    expectCleanAudit(await auditPostgres(database.url), "node kill");
  });
});
