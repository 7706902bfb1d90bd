// Fault: PostgreSQL stops for 10 s while clients submit and read. Meanwhile every answer that needs the
// database is 503 UNAVAILABLE with Retry-After (never a 500); once it is back the same server process
// serves again without a restart, the jobs caught in the outage finish, and the data audits clean.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually } from "../support/jobs";
import { startServerProcess, type Child } from "../support/processes";
import { createPrivatePostgres, type PrivatePostgres } from "./private-postgres";
import { auditPostgres, expectCleanAudit, faultPorts, scratchDatabase, sleep } from "./support";

let postgres: PrivatePostgres;
let database: { url: string; drop(): Promise<void> };
let server: Child;

beforeAll(async () => {
  postgres = await createPrivatePostgres(faultPorts.outage.postgres);
  database = await scratchDatabase(postgres.adminUrl);
  server = await startServerProcess({
    DATABASE_URL: database.url,
    PORT: String(faultPorts.outage.server),
    EMBEDDED_NODES: "1",
    EMBEDDED_NODE_CONCURRENCY: "4",
    NODE_LEASE_MS: "1500",
    STARTER_CREDITS: "100000",
    RATE_LIMIT_PER_MINUTE: "0",
  });
});
afterAll(async () => {
  await server?.kill();
  await postgres?.start().catch(() => undefined); // the drop below needs it, whatever failed
  await database?.drop();
  await postgres?.destroy();
});

interface Answer {
  at: number;
  route: string;
  status: number;
  code?: string;
  retryAfter: string | null;
  requestId: string | null;
  jobId?: string;
}

/** Clients that keep submitting and reading until stopped, recording every answer. */
function trafficAgainst(dev: Developer, key: string, workers: number) {
  const answers: Answer[] = [];
  let running = true;
  const routes: [string, () => Promise<Response>][] = [
    [
      "execute",
      () =>
        dev.withKey(key, "/api/marketplace/services/token-count/execute", {
          method: "POST",
          body: JSON.stringify({ input: { text: "outage" } }),
          headers: { "content-type": "application/json" },
        }),
    ],
    ["jobs", () => dev.withKey(key, "/api/developers/jobs?limit=5")],
    ["balance", () => dev.withKey(key, "/api/credits/balance")],
    ["services", () => dev.withKey(key, "/api/marketplace/services")],
  ];
  const loop = async (worker: number) => {
    for (let i = worker; running; i++) {
      const [route, send] = routes[i % routes.length];
      try {
        const res = await send();
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string }; jobId?: string };
        answers.push({
          at: Date.now(),
          route,
          status: res.status,
          code: body.error?.code,
          retryAfter: res.headers.get("retry-after"),
          requestId: res.headers.get("x-request-id"),
          jobId: body.jobId,
        });
      } catch (error) {
        answers.push({ at: Date.now(), route, status: 0, code: String(error), retryAfter: null, requestId: null });
      }
      await sleep(25);
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => loop(w)));
  return {
    answers,
    async stop() {
      running = false;
      await done;
    },
  };
}

async function activeJobs(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "select count(*)::int as n from jobs where status not in ('completed', 'failed')",
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

describe("fault: PostgreSQL stops for 10 s under load", () => {
  it("answers 503 UNAVAILABLE with Retry-After meanwhile and recovers fully afterwards", async () => {
    const baseUrl = String(server.ready.baseUrl);
    const dev = await signUpDeveloper(baseUrl);
    const key = await dev.createApiKey();
    const traffic = trafficAgainst(dev, key, 4);
    await sleep(2_000);

    const stoppedAt = Date.now();
    await postgres.stop();
    await sleep(10_000);
    const restartedAt = Date.now();
    await postgres.start();

    // Recovery without a restart: the same process serves a submission again.
    await eventually(
      async () => (await dev.withKey(key, "/api/credits/balance")).status,
      (status) => status === 200,
      30_000,
    );
    const recoveredAt = Date.now();
    await sleep(2_000);
    await traffic.stop();
    const { answers } = traffic;

    // Never a 5xx other than the envelope's 503; never a dropped connection.
    const unexpected = answers.filter((a) => !(a.status < 500 || (a.status === 503 && a.code === "UNAVAILABLE")));
    const unhandled = server
      .output()
      .split("\n")
      .filter((l) => l.includes("unhandled error"))
      .slice(0, 3)
      .join("\n");
    expect(unexpected, `server log:\n${unhandled}`).toEqual([]);
    // Every refusal is the envelope's 503 with Retry-After and a request id.
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((a) => !a.retryAfter || !a.requestId)).toEqual([]);
    // While the database was down (after a short settling), nothing succeeded or failed any other way.
    const duringOutage = answers.filter(
      (a) => a.at > stoppedAt + 1_000 && a.at < restartedAt && a.route !== "services",
    );
    expect(duringOutage.length).toBeGreaterThan(10);
    expect(duringOutage.filter((a) => a.status !== 503)).toEqual([]);
    // After recovery everything succeeds again.
    const after = answers.filter((a) => a.at > recoveredAt + 500);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((a) => a.status >= 400)).toEqual([]);

    // Jobs accepted before, and after, the outage all finish; the data is consistent.
    const accepted = answers.filter((a) => a.status === 202 && a.jobId).map((a) => a.jobId as string);
    expect(accepted.length).toBeGreaterThan(0);
    await eventually(
      () => activeJobs(database.url),
      (active) => active === 0,
      120_000,
    );
    expectCleanAudit(await auditPostgres(database.url), "PostgreSQL outage");
  });
});
