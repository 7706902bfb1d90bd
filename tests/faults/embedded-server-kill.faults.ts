// Fault: the server on the embedded database (PGlite, one process owns the data directory) is killed
// (SIGKILL) mid-run and started again on the same directory: every job recovers and completes once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { openEmbeddedForAudit, auditDatabase } from "../support/audit";
import { signUpDeveloper } from "../support/developer";
import { eventually, execute } from "../support/jobs";
import { startServerProcess, type Child } from "../support/processes";
import { expectCleanAudit, faultPorts } from "./support";

const dataDir = mkdtempSync(path.join(tmpdir(), "en-faults-embedded-"));
const children: Child[] = [];
let llm: OpenAiCompatibleServer;
beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ apiKey: "sk-test" });
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await llm?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = {
  DATA_DIR: dataDir,
  DATABASE_URL: "",
  PORT: String(faultPorts.embedded.server),
  NODE_LEASE_MS: "1000",
  EMBEDDED_NODES: "1",
  EMBEDDED_NODE_CONCURRENCY: "2",
  STARTER_CREDITS: "10000",
  RATE_LIMIT_PER_MINUTE: "0",
};

async function startServer() {
  const child = await startServerProcess({
    ...env,
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: "sk-test",
    LLM_MODEL: "test-model",
  });
  children.push(child);
  return child;
}

describe("fault: kill -9 the server on the embedded database mid-run", () => {
  it("after a restart on the same data directory every job completes exactly once and the data audits clean", async () => {
    // Slow provider calls keep jobs running when the crash comes.
    llm.behave({ reply: "slow", delayMs: 1_500 });
    const first = await startServer();
    const baseUrl = String(first.ready.baseUrl);
    const dev = await signUpDeveloper(baseUrl);
    const key = await dev.createApiKey();
    const submitted: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await execute(dev, key, "text-generate", { prompt: `crash test ${i}` });
      expect(res.status).toBe(202);
      submitted.push(((await res.json()) as { jobId: string }).jobId);
    }
    const jobList = async () =>
      (await (await dev.withKey(key, "/api/developers/jobs?limit=100")).json()) as {
        data: { jobId: string; status: string }[];
      };
    // The crash falls mid-run: a job is running and others wait.
    const before = await eventually(jobList, (l) => l.data.some((j) => j.status === "running"));
    await first.kill("SIGKILL");
    expect(before.data.some((j) => j.status !== "completed")).toBe(true);
    llm.behave({ reply: "normal" });

    const second = await startServer();
    const list = await eventually(
      jobList,
      (l) => l.data.every((j) => j.status === "completed" || j.status === "failed"),
      120_000,
    );
    expect(new Set(list.data.map((j) => j.jobId))).toEqual(new Set(submitted));
    expect(list.data.filter((j) => j.status !== "completed")).toEqual([]);

    // Only one process may own the directory: stop the server cleanly, then audit its data.
    await second.kill("SIGTERM");
    const db = await openEmbeddedForAudit(dataDir);
    try {
      expectCleanAudit(await auditDatabase(db), "embedded server kill");
    } finally {
      await db.close();
    }
  });
});
