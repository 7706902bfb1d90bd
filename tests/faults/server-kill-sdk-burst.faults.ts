// Fault: the server is killed (SIGKILL) during a burst of SDK submissions, each with its own idempotency
// key, and restarted on the same address. The SDK retries until the server answers again; afterwards each
// logical request is exactly one job and one charge.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionClient } from "@/lib/client/src";
import { signUpDeveloper } from "../support/developer";
import { eventually } from "../support/jobs";
import { startServerProcess, type Child } from "../support/processes";
import { createPrivatePostgres, type PrivatePostgres } from "./private-postgres";
import { auditPostgres, expectCleanAudit, faultPorts, scratchDatabase, sleep } from "./support";

let postgres: PrivatePostgres;
let database: { url: string; drop(): Promise<void> };
const children: Child[] = [];

beforeAll(async () => {
  postgres = await createPrivatePostgres(faultPorts.sdkBurst.postgres);
  database = await scratchDatabase(postgres.adminUrl);
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await database?.drop();
  await postgres?.destroy();
});

const serverEnv = () => ({
  DATABASE_URL: database.url,
  PORT: String(faultPorts.sdkBurst.server),
  EMBEDDED_NODES: "1",
  EMBEDDED_NODE_CONCURRENCY: "4",
  NODE_LEASE_MS: "1000",
  STARTER_CREDITS: "100000",
  RATE_LIMIT_PER_MINUTE: "0",
});

async function startServer() {
  const child = await startServerProcess(serverEnv());
  children.push(child);
  return child;
}

describe("fault: kill -9 the server during a burst of SDK submissions", () => {
  it("each logical request becomes exactly one job and one charge, and the data audits clean", async () => {
    const first = await startServer();
    const baseUrl = String(first.ready.baseUrl);
    const dev = await signUpDeveloper(baseUrl);
    const client = new ExecutionClient({
      apiKey: await dev.createApiKey(),
      baseUrl,
      maxRetries: 20,
      timeoutMs: 10_000,
    });

    const logical = 60;
    const keys = Array.from({ length: logical }, (_, i) => `fault-burst-${i}-${crypto.randomUUID()}`);
    // Submissions go out every 40 ms; the server dies once a few are answered, and stays down ~2 s.
    let answered = 0;
    const submissions = keys.map(async (idempotencyKey, i) => {
      await sleep(i * 40);
      const job = await client.execute("token-count", { text: `logical request ${i}` }, { idempotencyKey });
      answered++;
      return job;
    });
    await eventually(
      async () => answered,
      (n) => n >= 8,
      60_000,
    );
    await first.kill("SIGKILL");
    const answeredBeforeCrash = answered;
    await sleep(2_000);
    await startServer();

    const results = await Promise.allSettled(submissions);
    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    // The crash really fell inside the burst: some calls were answered before it, the rest only after.
    expect(answeredBeforeCrash).toBeGreaterThan(0);
    expect(answeredBeforeCrash).toBeLessThan(logical);
    const jobIds = results.map((r) => (r as PromiseFulfilledResult<{ jobId: string }>).value.jobId);
    expect(new Set(jobIds).size).toBe(logical);

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const count = async (text: string) => Number((await db.query<{ n: number }>(text)).rows[0].n);
      expect(await count("select count(*)::int as n from jobs")).toBe(logical);
      expect(await count("select count(*)::int as n from credit_ledger where type = 'charge'")).toBe(logical);
      const stored = await db.query<{ key: string; job_id: string }>("select key, job_id from idempotency_keys");
      expect(new Map(stored.rows.map((r) => [r.key, r.job_id]))).toEqual(new Map(keys.map((k, i) => [k, jobIds[i]])));
      await eventually(
        () => count("select count(*)::int as n from jobs where status not in ('completed', 'failed')"),
        (active) => active === 0,
        120_000,
      );
      expect(await count("select count(*)::int as n from jobs where status = 'completed'")).toBe(logical);
    } finally {
      await db.end();
    }
    expectCleanAudit(await auditPostgres(database.url), "server kill during SDK burst");
  });
});
