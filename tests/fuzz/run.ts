// `npm run test:fuzz`: the property-based API fuzzer against the real `next start` server on a throwaway
// PostgreSQL database, then the data audits. FUZZ_RUNS (default 10 000), FUZZ_SEED, FUZZ_PORT (3747),
// FUZZ_BASE_URL + FUZZ_DATABASE_URL to fuzz a server that is already running. Exit code 1 on any failure.
import pg from "pg";
import { auditDatabase, describeAudit } from "../support/audit";
import { signUpDeveloper } from "../support/developer";
import { createThrowawayDatabase } from "../support/postgres";
import { snapshot, unexplainedChanges } from "./change-audit";
import { fuzzApi, groupFailures, type FuzzCredentials } from "./api-fuzz";
import { ensureBuild, startNextServer, type NextServer } from "./next-server";

const say = (line: string) => process.stderr.write(`[fuzz] ${line}\n`);
const runs = Number(process.env.FUZZ_RUNS ?? "10000");
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const port = Number(process.env.FUZZ_PORT ?? "3747");

async function prepareCredentials(baseUrl: string, databaseUrl: string): Promise<FuzzCredentials> {
  const dev = await signUpDeveloper(baseUrl, { name: "Fuzz Developer" });
  const apiKey = await dev.createApiKey();
  const spareKeyIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await dev.session("/api/developers/keys", {
      method: "POST",
      body: JSON.stringify({ name: `spare ${i}`, scopes: ["jobs:read"] }),
    });
    spareKeyIds.push(((await res.json()) as { keyId: string }).keyId);
  }
  const jobIds: string[] = [];
  for (const text of ["fuzz one", "fuzz two"]) {
    const res = await dev.withKey(apiKey, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      body: JSON.stringify({ input: { text } }),
    });
    jobIds.push(((await res.json()) as { jobId: string }).jobId);
  }
  // A developer who has used the playground: the dashboard key, made by the first Run that passes the route's
  // guards (whatever the Run's outcome), exists before the audit's snapshot, so fuzzed Runs reuse it.
  const run = await dev.session("/api/dashboard/services/token-count/run", {
    method: "POST",
    headers: { "idempotency-key": "fuzz-setup-run" },
    body: JSON.stringify({ input: { text: "fuzz three" } }),
  });
  if (run.status !== 202) throw new Error(`the setup's dashboard Run answered ${run.status}: ${await run.text()}`);
  jobIds.push(((await run.json()) as { jobId: string }).jobId);
  // A node token, so node routes are fuzzed past their guard too (issued the operator's way, in the database).
  process.env.DATABASE_URL = databaseUrl;
  const { issueNodeToken } = await import("@/lib/network/coordinator");
  const { token: nodeToken } = await issueNodeToken("fuzz-node", { region: "fuzz" });
  return { apiKey, cookie: dev.cookie, nodeToken, jobIds, spareKeyIds };
}

async function waitForFinalJobs(db: pg.Client, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 200; Date.now() < deadline; delay = Math.min(delay * 2, 2_000)) {
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from jobs where status not in ('completed', 'failed')",
    );
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, delay));
  }
}

async function main(): Promise<number> {
  let server: NextServer | undefined;
  let scratch: { url: string; drop(): Promise<void> } | undefined;
  let baseUrl = process.env.FUZZ_BASE_URL;
  let databaseUrl = process.env.FUZZ_DATABASE_URL;
  try {
    if (!baseUrl || !databaseUrl) {
      await ensureBuild(say);
      scratch = await createThrowawayDatabase(
        process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
        "en_fuzz",
      );
      databaseUrl = scratch.url;
      server = await startNextServer(port, {
        DATABASE_URL: databaseUrl,
        APP_ORIGIN: `http://127.0.0.1:${port}`,
        SESSION_SECRET: "fuzz-session-secret-that-is-long-enough-0123456789",
        STARTER_CREDITS: String(10 ** 9),
        RATE_LIMIT_PER_MINUTE: "0",
        EMBEDDED_NODES: "1",
        NODE_LEASE_MS: "2000",
        // Only failures are logged: a 500's cause is printed under its case.
        LOG_LEVEL: "error",
      });
      baseUrl = server.baseUrl;
    }
    say(`${runs} cases against ${baseUrl}, seed ${seed}`);
    const credentials = await prepareCredentials(baseUrl, databaseUrl);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const before = await snapshot(db);
      const started = Date.now();
      const report = await fuzzApi(baseUrl, { runs, seed, credentials, onProgress: (n) => say(`${n} cases`) });
      const seconds = (Date.now() - started) / 1000;
      say(
        `${report.cases} cases in ${seconds.toFixed(0)} s (${(report.cases / seconds).toFixed(0)}/s); statuses ${JSON.stringify(report.byStatus)}`,
      );
      const groups = groupFailures(report.failures);
      for (const g of groups) {
        const e = g.example;
        say(
          `FAIL ×${g.count}: ${g.key}\n    on ${g.routes.length} route(s): ${g.routes.slice(0, 4).join(", ")}${g.routes.length > 4 ? ", …" : ""}\n    e.g. ${e.case.method} ${e.case.path}${e.case.query ? `?${e.case.query.slice(0, 200)}` : ""} → ${e.status} ${e.code ?? ""} ${e.responseText.slice(0, 160)}` +
            `\n    headers ${JSON.stringify({ ...e.case.headers, cookie: undefined, "x-api-key": undefined })} body (${e.case.bodyKind}) ${typeof e.case.body === "string" ? e.case.body.slice(0, 200) : ""}`,
        );
        const requestId = /"requestId":"([^"]+)"/.exec(e.responseText)?.[1];
        const logged = requestId ? (server?.output().split("\n") ?? []).filter((line) => line.includes(requestId)) : [];
        for (const line of logged) say(`    server logged: ${line.slice(0, 2_000)}`);
      }

      await waitForFinalJobs(db, 60_000);
      const touched = new Set(report.touched);
      const profileWrites = report.writes.some((w) => /^(POST|PATCH) \/api\/developers(\/me)?$/.test(w));
      const unexplained = await unexplainedChanges(db, before, touched, profileWrites);
      for (const line of unexplained) say(`CHANGED BY A REJECTED REQUEST: ${line}`);
      const audit = await auditDatabase(db);
      say(`audit: ${describeAudit(audit)}`);
      const ok = report.failures.length === 0 && unexplained.length === 0 && audit.violations.length === 0;
      say(
        ok
          ? `passed: ${report.cases} cases, seed ${seed}`
          : `FAILED (seed ${seed}: FUZZ_SEED=${seed} reproduces the cases)`,
      );
      return ok ? 0 : 1;
    } finally {
      await db.end();
    }
  } finally {
    await server?.stop();
    // The node token was issued through this process's own database handle: close it before the drop.
    const { closeDatabase } = await import("@/lib/db/open");
    await closeDatabase();
    await scratch?.drop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
