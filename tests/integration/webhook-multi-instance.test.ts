// Two server instances on one PostgreSQL share the outbox: each attempt is made by exactly one of them.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { eventually } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";
import { startWebhookReceiver } from "../support/webhook-receiver";

const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
});

describe.skipIf(!usePostgres())("webhooks from two instances on one PostgreSQL", () => {
  it("deliver every event once: 60 jobs, each webhook-id received exactly once, every delivery one attempt", async () => {
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    const database = await createScratchDatabase();
    cleanups.push(database.drop);
    const env = {
      DATABASE_URL: database.url,
      EMBEDDED_NODES: "1",
      STARTER_CREDITS: "5000",
      RATE_LIMIT_PER_MINUTE: "0",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    children.push(a, b);
    // Each instance runs its own embedded node: one shared node would be restarted by the other's start.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query("select name from nodes where embedded").finally(() => client.end());
    expect(new Set(rows.map((r: { name: string }) => r.name)).size).toBe(2);
    const urls = [a.ready.baseUrl as string, b.ready.baseUrl as string];
    const dev = await signUpDeveloper(urls[0]);
    const key = await dev.createApiKey();
    const res = await dev.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: receiver.url("/hook"), events: ["job.status_changed", "job.completed"] }),
    });
    expect(res.status).toBe(201);
    const { endpointId } = (await res.json()) as { endpointId: string };

    const total = 60;
    const jobIds: string[] = [];
    for (let i = 0; i < total; i++) {
      // Alternate instances, so both write events and both dispatchers see work.
      const r = await fetch(`${urls[i % 2]}/api/marketplace/services/token-count/execute`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ input: { text: `job ${i}` } }),
      });
      jobIds.push(((await r.json()) as { jobId: string }).jobId);
    }
    // queued, routing, assigned, running, completed + job.completed: six events per job.
    await eventually(
      async () => receiver.received.length,
      (n) => n >= total * 6,
      120_000,
    );
    // Give a duplicate, if any were made, time to arrive.
    await new Promise((r) => setTimeout(r, 1_000));
    const ids = receiver.received.map((r) => String(r.headers["webhook-id"]));
    expect(ids).toHaveLength(total * 6);
    expect(new Set(ids).size).toBe(ids.length);
    const page = (await (
      await dev.withKey(key, `/api/developers/webhooks/${endpointId}/deliveries?limit=100`)
    ).json()) as { data: { attempts: number; status: string }[] };
    expect(page.data.every((d) => d.attempts === 1 && d.status === "succeeded")).toBe(true);
  }, 180_000);
});
