import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { eventually, execute } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startChild, startServerProcess, type Child } from "../support/processes";

const children: Child[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  for (const c of cleanups) await c();
});

// Several server instances and nodes need a shared PostgreSQL: this runs in the postgres project.
describe.skipIf(!usePostgres())("two coordinator instances and two nodes on one PostgreSQL", () => {
  it("never assign a job twice: 1,000 jobs, each exactly one NODE_ASSIGNED and one EXECUTION_COMPLETED", async () => {
    const database = await createScratchDatabase();
    cleanups.push(database.drop);
    // Routing time is not under test: a loaded machine must not fail jobs by the routing timeout.
    const env = {
      DATABASE_URL: database.url,
      EMBEDDED_NODES: "0",
      STARTER_CREDITS: "5000",
      RATE_LIMIT_PER_MINUTE: "0",
      SWEEP_INTERVAL_MS: "200",
      ROUTING_TIMEOUT_MS: "600000",
    };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    children.push(a, b);
    const urls = [a.ready.baseUrl as string, b.ready.baseUrl as string];

    // Tokens are issued by the operator command against the same database.
    const tokens: string[] = [];
    for (const name of ["node-east", "node-west"]) {
      const issued = await startChild("scripts/node-token.ts", [name], { DATABASE_URL: database.url });
      tokens.push(issued.ready.token as string);
    }
    const nodes = await Promise.all(
      tokens.map((token, i) =>
        startChild(
          "scripts/node.ts",
          ["--url", urls[i], "--token", token, "--concurrency", "8", "--services", "token-count"],
          {},
        ),
      ),
    );
    children.push(...nodes);

    const dev = await signUpDeveloper(urls[0]);
    const key = await dev.createApiKey();
    const total = 1000;
    for (let start = 0; start < total; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const n = start + i;
          // Alternate instances: submissions land on both coordinators.
          const via = {
            ...dev,
            withKey: (k: string, p: string, init?: RequestInit) =>
              fetch(`${urls[n % 2]}${p}`, { ...init, headers: { "x-api-key": k, "content-type": "application/json" } }),
          };
          return execute(via, key, "token-count", { text: `job number ${n}` });
        }),
      );
      expect(batch.every((r) => r.status === 202)).toBe(true);
    }

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await eventually(
        async () =>
          Number(
            (await client.query("select count(*) from jobs where status in ('completed','failed')")).rows[0].count,
          ),
        (done) => done === total,
        240_000,
      );
      const perJob = await client.query(`
        select j.id, j.status, j.error,
               count(*) filter (where e.type = 'NODE_ASSIGNED') as assigned,
               count(*) filter (where e.type = 'EXECUTION_COMPLETED') as completed
        from jobs j join job_events e on e.job_id = j.id
        group by j.id, j.status`);
      expect(perJob.rows).toHaveLength(total);
      const anomalies = perJob.rows.filter(
        (r) => r.status !== "completed" || Number(r.assigned) !== 1 || Number(r.completed) !== 1,
      );
      expect(anomalies).toEqual([]);
      const byNode = await client.query("select assigned_node_id, count(*) from jobs group by assigned_node_id");
      expect(byNode.rows).toHaveLength(2); // both nodes took work
    } finally {
      await client.end();
    }
  }, 300_000);
});
