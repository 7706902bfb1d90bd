// `npm run bench`: submit throughput against a trivial route, queue overhead at a steady rate and end-to-end
// jobs/s with 1 and 4 nodes, on PGlite, or on PostgreSQL (with graphile-worker as the reference) when
// DATABASE_URL is set. Prints the tables and writes them into docs/benchmarks.md.
// Options: --duration <s> (autocannon, per route), --connections <n>, --rate <jobs/s>, --steady-jobs <n>,
// --burst-jobs <n>.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { parseEnv } from "@/lib/env";
import { flag } from "./cli";
import { measureCpu } from "./bench/cpu";
import { benchGraphileWorker, type GraphileResult } from "./bench/graphile";
import { load } from "./bench/http-load";
import { readAllJobTimes, serviceId, submitBurst, submitJob, submitSteadily, waitUntilFinal, jobInput } from "./bench/jobs";
import { mergeIntoDocument, renderSection, type HttpResults, type Machine, type NodesResults, type RunResults } from "./bench/report";
import { startServerUnderTest, type Driver, type ServerUnderTest } from "./bench/server";
import { summarize } from "./bench/stats";

const positiveNumber = (name: string, fallback: number) => {
  const value = Number(flag(name, String(fallback)));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};

const options = {
  durationSeconds: positiveNumber("duration", 5),
  connections: positiveNumber("connections", 10),
  rate: positiveNumber("rate", 10),
  steadyJobs: positiveNumber("steady-jobs", 150),
  burstJobs: positiveNumber("burst-jobs", 300),
  nodeCounts: [1, 4],
  /** Any single wait for jobs to finish. */
  timeoutMs: 120_000,
};

const adminUrl = process.env.DATABASE_URL || undefined;
const driver: Driver = adminUrl ? "postgres" : "pglite";
const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// Whatever is running is stopped on Ctrl-C, so no server, data directory or database outlives the bench.
const cleanups = new Set<() => Promise<void>>();
process.once("SIGINT", () => {
  void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
});

async function withServer<T>(embeddedNodes: number, env: Record<string, string>, use: (server: ServerUnderTest) => Promise<T>): Promise<T> {
  const server = await startServerUnderTest({ driver, adminUrl, embeddedNodes, env });
  cleanups.add(server.stop);
  try {
    return await use(server);
  } finally {
    cleanups.delete(server.stop);
    await server.stop();
  }
}

const packageVersion = (name: string) =>
  (JSON.parse(readFileSync(path.join(process.cwd(), "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

async function describeMachine(): Promise<Machine> {
  let database = `PGlite ${packageVersion("@electric-sql/pglite")} (data directory on disk)`;
  if (adminUrl) {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ server_version: string }>("show server_version");
      database = `PostgreSQL ${rows[0].server_version} via node-postgres ${packageVersion("pg")}`;
    } finally {
      await client.end();
    }
  }
  const shownUrl = adminUrl ? new URL(adminUrl) : undefined;
  if (shownUrl?.password) shownUrl.password = "***";
  const args = process.argv.slice(2).join(" ");
  return {
    cpuModel: os.cpus()[0]?.model ?? "unknown CPU",
    cores: os.cpus().length,
    node: process.version,
    driver: database,
    loadAverage: os.loadavg(),
    date: new Date().toISOString(),
    command: `${shownUrl ? `DATABASE_URL=${shownUrl.toString()} ` : ""}npm run bench${args ? ` -- ${args}` : ""}`,
  };
}

/** Submit throughput and latency of execute vs the trivial route, on a server without nodes. */
async function benchHttp(): Promise<HttpResults> {
  // Nothing routes the submitted jobs, and nothing may fail them for it while the bench runs.
  return withServer(0, { ROUTING_TIMEOUT_MS: String(10 * 60_000) }, async (server) => {
    const health = { url: `${server.baseUrl}/api/health/live`, connections: options.connections, serverPid: server.pid, withPostgres: driver === "postgres" };
    const execute = {
      ...health,
      url: `${server.baseUrl}/api/marketplace/services/${serviceId}/execute`,
      method: "POST" as const,
      headers: { "x-api-key": server.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ input: jobInput(0) }),
    };
    progress("HTTP: warming up");
    await load({ ...health, durationSeconds: 1 });
    await load({ ...execute, durationSeconds: 1 });
    progress(`HTTP: GET /api/health/live for ${options.durationSeconds} s`);
    const healthResult = await load({ ...health, durationSeconds: options.durationSeconds });
    progress(`HTTP: POST …/${serviceId}/execute for ${options.durationSeconds} s`);
    const executeResult = await load({ ...execute, durationSeconds: options.durationSeconds });
    return { connections: options.connections, durationSeconds: options.durationSeconds, health: healthResult, execute: executeResult };
  });
}

/** Steady-rate overhead, then a burst drained while it arrives, with `nodes` embedded nodes. */
async function benchNodes(nodes: number): Promise<NodesResults> {
  const slots = nodes * parseEnv({ NODE_ENV: "production" }).EMBEDDED_NODE_CONCURRENCY;
  return withServer(nodes, {}, async (server) => {
    const withPostgres = driver === "postgres";
    let submitted = 0;
    /** Submits `count` more jobs (steadily or as a burst) and waits until every job so far is final. */
    const submitMore = async (count: number, how: "steady" | "burst") => {
      const base = submitted;
      submitted += count;
      const one = (i: number) => submitJob(server, base + i);
      const jobs = how === "steady" ? await submitSteadily(options.rate, count, one) : await submitBurst(count, options.connections, one);
      const final = await waitUntilFinal(server, submitted, options.timeoutMs);
      return { jobs, final };
    };

    progress(`${nodes} node(s): warming up`);
    const warm = await submitMore(slots * 4, "burst");

    progress(`${nodes} node(s): ${options.steadyJobs} jobs at ${options.rate} jobs/s`);
    const steadyCpu = measureCpu(server.pid, withPostgres);
    const steady = await submitMore(options.steadyJobs, "steady");
    const steadyCpuUse = steadyCpu();
    const steadyTimes = await readAllJobTimes(server, steady.jobs.map((j) => j.jobId));

    progress(`${nodes} node(s): ${options.burstJobs} jobs from ${options.connections} clients`);
    const burstCpu = measureCpu(server.pid, withPostgres);
    const burst = await submitMore(options.burstJobs, "burst");
    const burstCpuUse = burstCpu();
    const burstTimes = await readAllJobTimes(server, burst.jobs.map((j) => j.jobId));
    const created = burstTimes.map((t) => t.created);
    const first = Math.min(...created);
    // A failed job has no completion; the span runs to the last one that completed.
    const spanMs = Math.max(...burstTimes.map((t) => t.completed).filter(Number.isFinite)) - first;

    return {
      nodes,
      slots,
      steady: {
        rate: options.rate,
        count: options.steadyJobs,
        overhead: summarize(steadyTimes.map((t) => t.started - t.created)),
        createdToAssigned: summarize(steadyTimes.map((t) => t.assigned - t.created)),
        assignedToStarted: summarize(steadyTimes.map((t) => t.started - t.assigned)),
        submit: summarize(steady.jobs.map((j) => j.submitMs)),
        failed: steady.final.failed - warm.final.failed,
        cpu: steadyCpuUse,
      },
      burst: {
        jobs: burstTimes.length,
        submitters: options.connections,
        spanMs,
        jobsPerSecond: (burstTimes.length / spanMs) * 1000,
        submitWindowMs: Math.max(...created) - first,
        providerMs: summarize(burstTimes.map((t) => t.providerMs)),
        failed: burst.final.failed - steady.final.failed,
        cpu: burstCpuUse,
      },
    };
  });
}

async function main() {
  const machine = await describeMachine();
  progress(`driver: ${machine.driver}; load average ${machine.loadAverage.map((l) => l.toFixed(2)).join(", ")}`);
  const http = await benchHttp();
  const nodes: NodesResults[] = [];
  for (const n of options.nodeCounts) nodes.push(await benchNodes(n));
  const graphile: GraphileResult[] = [];
  if (adminUrl) {
    for (const n of nodes) {
      progress(`graphile-worker: concurrency ${n.slots}`);
      graphile.push(
        await benchGraphileWorker({
          adminUrl,
          concurrency: n.slots,
          steady: { rate: options.rate, count: options.steadyJobs },
          burst: { count: options.burstJobs, submitters: options.connections },
          timeoutMs: options.timeoutMs,
        }),
      );
    }
  }
  const results: RunResults = { driver, machine, http, nodes, graphile, graphileVersion: adminUrl ? packageVersion("graphile-worker") : undefined };
  const section = renderSection(results);
  process.stdout.write(`${section}\n`);
  const file = path.join(process.cwd(), "docs", "benchmarks.md");
  mergeIntoDocument(file, driver, section);
  progress(`wrote ${path.relative(process.cwd(), file)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
