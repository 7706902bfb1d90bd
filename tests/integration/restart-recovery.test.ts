import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from "@/lib/network/providers/testing/openai-compatible-server";
import { signUpDeveloper } from "../support/developer";
import { eventually, execute, telemetry, typesOf } from "../support/jobs";
import { startServerProcess, type Child } from "../support/processes";
import { createScratchDatabase, usePostgres } from "../support/postgres";

const dataDir = mkdtempSync(path.join(tmpdir(), "en-restart-"));
const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
let llm: OpenAiCompatibleServer;
beforeAll(async () => {
  llm = await startOpenAiCompatibleServer({ apiKey: "sk-test" });
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
  rmSync(dataDir, { recursive: true, force: true });
  await llm.close();
});

type JobList = { data: { jobId: string; status: string }[] };

describe("restart safety", () => {
  it("after a crash mid-run, every non-final job is recovered and completes exactly once", async () => {
    const database = usePostgres() ? await createScratchDatabase() : undefined;
    if (database) cleanups.push(database.drop);
    const env = {
      DATA_DIR: dataDir,
      PORT: "0",
      // The restarted embedded node keeps its identity, so its registration loses what the crashed one held at
      // once: the lease is not what recovers them. A short lease would let a stall on a busy machine (PGlite runs
      // on the server's own thread) expire a healthy node's lease and lose a job that was never at risk.
      NODE_LEASE_MS: "15000",
      EMBEDDED_NODES: "1",
      EMBEDDED_NODE_CONCURRENCY: "2",
      STARTER_CREDITS: "1000",
      ROUTING_TIMEOUT_MS: "600000",
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: "sk-test",
      LLM_MODEL: "test-model",
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    // The LLM stalls: the node holds two jobs running, the other 38 wait to be routed.
    llm.behave({ reply: "slow", delayMs: 120_000 });
    const first = await startServerProcess(env);
    children.push(first);
    const baseUrl = first.ready.baseUrl as string;
    const dev = await signUpDeveloper(baseUrl);
    const key = await dev.createApiKey();
    const submitted: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await execute(dev, key, "text-generate", { prompt: `Job number ${i}: write one sentence.` });
      submitted.push((await res.json()).jobId);
    }
    const listJobs = async () => (await (await dev.withKey(key, "/api/developers/jobs?limit=100")).json()) as JobList;
    const atCrash = await eventually(listJobs, (l) => l.data.filter((j) => j.status === "running").length === 2);
    expect(atCrash.data.filter((j) => j.status === "completed" || j.status === "failed")).toEqual([]);
    const runningAtCrash = atCrash.data.filter((j) => j.status === "running").map((j) => j.jobId);
    // Crash (no graceful shutdown) while work is in flight.
    await first.kill("SIGKILL");
    llm.behave({ reply: "normal" });

    const second = await startServerProcess({ ...env, PORT: new URL(baseUrl).port });
    children.push(second);
    const list = await eventually(
      listJobs,
      (l) => l.data.every((j) => j.status === "completed" || j.status === "failed"),
      120_000,
    );
    expect(list.data).toHaveLength(40);
    expect(new Set(list.data.map((j) => j.jobId))).toEqual(new Set(submitted));
    // A job that did not complete is shown with its error, so a failure says why (lease, routing, provider).
    const notCompleted = list.data.filter((j) => j.status !== "completed");
    const why = await Promise.all(
      notCompleted.map(async (j) => (await dev.withKey(key, `/api/developers/jobs/${j.jobId}`)).json()),
    );
    expect(why).toEqual([]);
    for (const jobId of submitted) {
      const events = await telemetry(dev, key, jobId);
      expect(events.filter((e) => e.type === "EXECUTION_COMPLETED")).toHaveLength(1);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      // The two jobs running at the crash were lost with their node and ran again as attempt 2.
      expect([jobId, typesOf(events).filter((t) => t === "NODE_LOST").length]).toEqual([
        jobId,
        runningAtCrash.includes(jobId) ? 1 : 0,
      ]);
    }
  }, 180_000); // two server starts and 40 jobs: beyond the default minute on a loaded 2-core machine
});
