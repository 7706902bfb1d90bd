// Deliveries are in the database, not in a process: kill -9 the server while they are pending, start it
// again, and they are delivered.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { eventually, submit, waitForStatus } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";
import { startWebhookReceiver } from "../support/webhook-receiver";

const dataDir = mkdtempSync(path.join(tmpdir(), "en-webhook-restart-"));
const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("webhooks across a crash", () => {
  it("pending deliveries of a killed server are delivered after the restart", async () => {
    let receiverUp = false;
    const receiver = await startWebhookReceiver(() => (receiverUp ? 200 : 503));
    cleanups.push(receiver.close);
    const database = usePostgres() ? await createScratchDatabase() : undefined;
    if (database) cleanups.push(database.drop);
    const env = {
      DATA_DIR: dataDir,
      PORT: "0",
      STARTER_CREDITS: "1000",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_SCHEDULE_MS: "500",
      // An attempt in flight at the crash is retried when its lease (timeout + 5 s) ends.
      WEBHOOK_TIMEOUT_MS: "2000",
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const first = await startServerProcess(env);
    children.push(first);
    const baseUrl = first.ready.baseUrl as string;
    const dev = await signUpDeveloper(baseUrl);
    const key = await dev.createApiKey();
    const res = await dev.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: receiver.url("/hook"), events: ["job.completed"] }),
    });
    expect(res.status).toBe(201);
    const jobs = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => submit(dev, key, "token-count", { text: `restart ${i}` })),
    );
    for (const job of jobs) await waitForStatus(dev, key, job.jobId);
    // The receiver is refusing: every completion is pending a retry when the server dies.
    await eventually(
      async () => new Set(receiver.received.map((r) => r.headers["webhook-id"])).size,
      (n) => n === jobs.length,
    );
    await first.kill("SIGKILL");

    receiverUp = true;
    const second = await startServerProcess({ ...env, PORT: new URL(baseUrl).port });
    children.push(second);
    const acknowledged = () =>
      receiver.received.filter((r) => r.answered === 200).map((r) => JSON.parse(r.body).data.job.jobId as string);
    await eventually(
      async () => new Set(acknowledged()),
      (ids) => ids.size === jobs.length,
      60_000,
    );
    expect(new Set(acknowledged())).toEqual(new Set(jobs.map((j) => j.jobId)));
  }, 120_000);
});
