import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { eventually, execute, telemetry } from "../support/jobs";
import { startServerProcess, type Child } from "../support/processes";
import { createScratchDatabase, usePostgres } from "../support/postgres";

const dataDir = mkdtempSync(path.join(tmpdir(), "en-restart-"));
const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("restart safety", () => {
  it("after a crash mid-run, every non-final job is recovered and completes exactly once", async () => {
    const database = usePostgres() ? await createScratchDatabase() : undefined;
    if (database) cleanups.push(database.drop);
    const env = {
      DATA_DIR: dataDir,
      PORT: "0",
      NODE_LEASE_MS: "1000",
      EMBEDDED_NODES: "1",
      EMBEDDED_NODE_CONCURRENCY: "2",
      STARTER_CREDITS: "1000",
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const first = await startServerProcess(env);
    children.push(first);
    const baseUrl = first.ready.baseUrl as string;
    const dev = await signUpDeveloper(baseUrl);
    const key = await dev.createApiKey();
    const submitted: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await execute(dev, key, "text-summarize", { text: `Sentence number ${i}. It is short. Another one follows.` });
      submitted.push((await res.json()).jobId);
    }
    // Crash (no graceful shutdown) while work is in flight.
    await first.kill("SIGKILL");

    const second = await startServerProcess({ ...env, PORT: new URL(baseUrl).port });
    children.push(second);
    const list = await eventually(
      async () => (await (await dev.withKey(key, "/api/developers/jobs?limit=100")).json()) as { data: { jobId: string; status: string }[] },
      (l) => l.data.every((j) => j.status === "completed" || j.status === "failed"),
      120_000,
    );
    expect(list.data).toHaveLength(40);
    expect(new Set(list.data.map((j) => j.jobId))).toEqual(new Set(submitted));
    expect(list.data.every((j) => j.status === "completed")).toBe(true);
    for (const jobId of submitted) {
      const events = await telemetry(dev, key, jobId);
      expect(events.filter((e) => e.type === "EXECUTION_COMPLETED")).toHaveLength(1);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    }
  });
});
