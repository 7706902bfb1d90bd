// `npm run bench`: the product as users run it (`server.mjs` on the production build, no warm-up) beside the
// warmed harness (the route handlers in tests/support/serve.ts): submit throughput against a trivial route,
// queue overhead at a steady rate and end-to-end jobs/s with 1 and 4 nodes (with /api/health/live probed
// meanwhile), on PGlite, or on PostgreSQL when DATABASE_URL is set: then also graphile-worker as the reference
// and the scale-out from 1 to 2 server instances with standalone nodes. Prints the tables and writes its
// section of docs/benchmarks.md.
// Options: --duration <s> (autocannon, per route), --connections <n>, --rate <jobs/s>, --steady-jobs <n>,
// --burst-jobs <n>, --warmup-jobs <n>; --quick (a smaller warm-up, 1 node, no scale-out: a few minutes);
// --baseline <checkout> (the harness and `server.mjs` phases also on another checkout, paired with this one's;
// a checkout from before server.mjs runs `next start`: tests/support/next-server.ts),
// --baseline-receipts-off (the baseline is this tree's HEAD with the receipt step switched off, built by the bench:
// bench/receipts-off.ts), --rounds <n> (that many pairs of each);
// --profile (CPU profiles of the servers into .bench/, top functions in the report);
// --private-postgres (a throwaway cluster with pg_stat_statements loaded, instead of DATABASE_URL's server);
// --client fetch (the load generator submits with fetch instead of node:http: bench/jobs.ts);
// --machine-node (stay on this Node even when it is older than package.json's engines: bench/supported-node.ts);
// --webhook (every server's developer has a job.completed endpoint on a receiver of the bench's, so every
// completion is delivered and signs its receipt; a drain ends with the last delivery: bench/completion-hooks.ts);
// --growth [--growth-jobs <n>] (PostgreSQL only, instead of the phases above: the growth section, bench/growth.ts);
// --observability (only the product's phase, with metrics scraped every second and traces exported against
// neither, paired in `--rounds` rounds, each server measured fresh and again warmed after `--warmup-jobs` more:
// bench/observability.ts; `--observed on,metrics,traces,…` runs those
// variants against the same off, to split the cost by phase; with --profile, self time by package).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { parseEnv } from "@/lib/env";
import { createPrivatePostgres, type PrivatePostgres } from "@/tests/faults/private-postgres";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { flag } from "./cli";
import { measureCpu, type BackendsCpu } from "./bench/cpu";
import { documentFile, writeSections } from "./bench/document";
import { benchGraphileWorker, type GraphileResult } from "./bench/graphile";
import { benchGrowth, renderGrowth } from "./bench/growth";
import { load } from "./bench/http-load";
import {
  readAllJobTimes,
  readJobTimes,
  serviceId,
  submitBurst,
  submitJob,
  submitJobTo,
  submitSteadily,
  useFetchClient,
  waitUntilFinal,
  jobInput,
  worstCaseSummarize,
} from "./bench/jobs";
import { enableStatementStats, measureDatabase, readTableWrites, trackBackendsCpu, withClient } from "./bench/pg-stats";
import { probeIdle, probeLiveness } from "./bench/probe";
import { benchObservability, parseVariants, renderObservability } from "./bench/observability";
import { benchProduct } from "./bench/product";
import { monotonicMicros, summarizeProfiles, summarizeProfilesByOwner, type ProfileWindow } from "./bench/profile";
import { aboutSection, renderSection } from "./bench/report";
import type {
  BaselineResults,
  HttpResults,
  Machine,
  NodesResults,
  PairedRound,
  ProductResult,
  RunResults,
  TreeResults,
} from "./bench/results";
import { startCompletionHooks, type CompletionHooks } from "./bench/completion-hooks";
import { benchScaleOut, type DatabaseWork, type ScaleOutResult } from "./bench/scale-out";
import { startServerUnderTest, type Driver, type ServerUnderTest } from "./bench/server";
import { summarize } from "./bench/stats";
import { receiptsOffCheckout } from "./bench/receipts-off";
import { rerunOnSupportedNode } from "./bench/supported-node";

const positiveNumber = (name: string, fallback: number) => {
  const value = Number(flag(name, String(fallback)));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const switchedOn = (name: string) => process.argv.slice(2).includes(`--${name}`);
/** `--quick`: the same phases, smaller, for a run of a few minutes (with a baseline, twice that). */
const quick = switchedOn("quick");

const report = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** Another checkout (with its node_modules) whose harness and `server.mjs` are measured beside this one's. */
function baselineRoot(): string | undefined {
  const dir = switchedOn("baseline-receipts-off") ? receiptsOffCheckout(process.cwd(), report) : flag("baseline");
  if (!dir) return undefined;
  const root = path.resolve(dir);
  for (const needed of ["package.json", "node_modules", "tests/support/serve.ts", "scripts/build-if-stale.mjs"])
    if (!existsSync(path.join(root, needed))) throw new Error(`--baseline ${dir}: ${needed} is missing there`);
  return root;
}

const options = {
  quick,
  durationSeconds: positiveNumber("duration", quick ? 2 : 5),
  connections: positiveNumber("connections", 10),
  rate: positiveNumber("rate", 10),
  steadyJobs: positiveNumber("steady-jobs", quick ? 100 : 150),
  burstJobs: positiveNumber("burst-jobs", quick ? 300 : 500),
  /**
   * Jobs run (and not measured) before anything is: V8 optimises a server's hot paths only after many calls
   * (CPU per job falls for about 5,000 jobs), and a server in production has been running. The same for
   * graphile-worker and the scale-out.
   */
  warmupJobs: positiveNumber("warmup-jobs", quick ? 1000 : 5000),
  nodeCounts: quick ? [1] : [1, 4],
  /** Scale-out: server instances sharing one database, with the same standalone nodes each time. */
  instanceCounts: quick ? [] : [1, 2],
  baseline: baselineRoot(),
  /** With `--baseline`: how many times each pair of phases runs (the report gives every round's ratio). */
  rounds: positiveNumber("rounds", 1),
  standaloneNodes: 2,
  standaloneConcurrency: 4,
  /** The idle server's liveness baseline. */
  idleProbeSeconds: 3,
  profile: switchedOn("profile"),
  webhook: switchedOn("webhook"),
  privatePostgres: switchedOn("private-postgres"),
  observability: switchedOn("observability"),
  privatePostgresPort: positiveNumber("private-postgres-port", 3751),
  /** Any single wait for jobs to finish. */
  timeoutMs: 120_000,
};

const client = flag("client", "node:http");
if (client === "fetch") useFetchClient();
else if (client !== "node:http") throw new Error("--client must be fetch or node:http");

let adminUrl = process.env.DATABASE_URL || undefined;
const driver: Driver = adminUrl || options.privatePostgres ? "postgres" : "pglite";
/** `--webhook`: the receiver of every server's job.completed deliveries. */
let hooks: CompletionHooks | undefined;
const progress = report;
/** This run's CPU profiles (gitignored). */
const profileRoot = path.join(process.cwd(), ".bench", "profiles", new Date().toISOString().replace(/[:.]/g, "-"));
const profileDir = (phase: string) => {
  if (!options.profile) return undefined;
  const dir = path.join(profileRoot, phase);
  mkdirSync(dir, { recursive: true });
  return dir;
};

// Whatever is running is stopped on Ctrl-C, so no server, data directory or database outlives the bench.
const cleanups = new Set<() => Promise<void>>();
process.once("SIGINT", () => {
  void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
});

/**
 * A server with `embeddedNodes` nodes on a fresh PGlite directory or a throwaway database of ours; on
 * PostgreSQL, `afterStop` reads the database once the server's connections are closed, before it is dropped.
 */
async function withServer<T>(
  root: string,
  embeddedNodes: number,
  env: Record<string, string>,
  use: (server: ServerUnderTest, database: { url: string; backends: BackendsCpu } | undefined) => Promise<T>,
  cpuProfileDir?: string,
  afterStop?: (result: T, databaseUrl: string) => Promise<T>,
): Promise<T> {
  const database = adminUrl ? await createThrowawayDatabase(adminUrl, "en_bench") : undefined;
  const backends = database ? trackBackendsCpu(database.url) : undefined;
  const dropDatabase = async () => {
    await backends?.stop();
    await database?.drop();
  };
  cleanups.add(dropDatabase);
  try {
    const server = await startServerUnderTest({
      driver,
      adminUrl,
      databaseUrl: database?.url,
      embeddedNodes,
      env,
      cpuProfileDir,
      root,
    });
    cleanups.add(server.stop);
    let result: T;
    try {
      result = await use(server, database && backends ? { url: database.url, backends } : undefined);
    } finally {
      cleanups.delete(server.stop);
      await server.stop();
    }
    return database && afterStop ? await afterStop(result, database.url) : result;
  } finally {
    cleanups.delete(dropDatabase);
    await dropDatabase();
  }
}

const packageVersion = (name: string) =>
  (
    JSON.parse(readFileSync(path.join(process.cwd(), "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

async function describeMachine(privatePostgres: boolean): Promise<Machine> {
  let database = `PGlite ${packageVersion("@electric-sql/pglite")} (data directory on disk)`;
  if (adminUrl) {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      // autovacuum too: without it, a table that keeps its history (ours) grows dead rows for the whole run,
      // while graphile-worker deletes each job it completes.
      const { rows } = await client.query<{ server_version: string; fsync: string; sc: string; av: string }>(
        "select current_setting('server_version') as server_version, current_setting('fsync') as fsync, current_setting('synchronous_commit') as sc, current_setting('autovacuum') as av",
      );
      const where = privatePostgres ? "a private throwaway cluster with pg_stat_statements" : "the machine's server";
      database = `PostgreSQL ${rows[0].server_version} (${where}; fsync ${rows[0].fsync}, synchronous_commit ${rows[0].sc}, autovacuum ${rows[0].av}) via node-postgres ${packageVersion("pg")}`;
    } finally {
      await client.end();
    }
  }
  const shownUrl = adminUrl && !privatePostgres ? new URL(adminUrl) : undefined;
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
  return withServer(process.cwd(), 0, { ROUTING_TIMEOUT_MS: String(10 * 60_000) }, async (server, database) => {
    const health = {
      url: `${server.baseUrl}/api/health/live`,
      connections: options.connections,
      serverPid: server.pid,
      postgres: database?.backends ?? false,
    };
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
    return {
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      health: healthResult,
      execute: executeResult,
    };
  });
}

/** Rows written over the database's life ÷ its jobs (the servers have stopped: counters flushed). */
async function addTableWrites<T extends { database?: DatabaseWork }>(result: T, databaseUrl: string): Promise<T> {
  if (!result.database) return result;
  await new Promise((r) => setTimeout(r, 500));
  const tableWrites = await readTableWrites(databaseUrl);
  const jobsInDatabase = await withClient(
    databaseUrl,
    async (c) => (await c.query<{ n: number }>("select count(*)::int as n from jobs")).rows[0].n,
  );
  return { ...result, database: { ...result.database, tableWrites, jobsInDatabase } };
}

/**
 * Steady-rate overhead, then a burst drained while it arrives, with `nodes` embedded nodes; the liveness
 * route is probed while idle, through the burst, and while a worst-case text-summarize job runs.
 */
async function benchNodes(nodes: number, root: string): Promise<NodesResults> {
  const slots = nodes * parseEnv({ NODE_ENV: "production" }).EMBEDDED_NODE_CONCURRENCY;
  const which = root === process.cwd() ? "" : "baseline ";
  const cpuProfileDir = which ? undefined : profileDir(`nodes-${nodes}`);
  let burstWindow: ProfileWindow = { fromUs: 0, toUs: 0 };
  const progress = (message: string) => report(`${which}${message}`);
  const results = await withServer<NodesResults>(
    root,
    nodes,
    hooks?.serverEnv ?? {},
    async (server, db) => {
      await hooks?.register(server.developer);
      const databaseUrl = db?.url;
      const postgres = db?.backends ?? false;
      const withStatements = databaseUrl ? await enableStatementStats(databaseUrl) : false;
      let submitted = 0;
      let failedSoFar = 0;
      /**
       * Submits `count` more jobs (steadily or as a burst) and waits until every job so far is final, and with
       * `--webhook` until each of these that completed has been delivered.
       */
      const submitMore = async (count: number, how: "steady" | "burst") => {
        const base = submitted;
        submitted += count;
        const one = (i: number) => submitJob(server, base + i);
        const jobs =
          how === "steady"
            ? await submitSteadily(options.rate, count, one)
            : await submitBurst(count, options.connections, one);
        const final = await waitUntilFinal(server, submitted, options.timeoutMs);
        const completedHere = count - (final.failed - failedSoFar);
        failedSoFar = final.failed;
        const ids = jobs.map((j) => j.jobId);
        const delivered = await hooks?.delivered(ids, completedHere, options.timeoutMs);
        return { jobs, final, delivered };
      };

      progress(`${nodes} node(s): probing the idle server for ${options.idleProbeSeconds} s`);
      const idleLiveness = await probeIdle(server.baseUrl, options.idleProbeSeconds);

      progress(`${nodes} node(s): warming up`);
      const warm = await submitMore(options.warmupJobs, "burst");

      progress(`${nodes} node(s): ${options.steadyJobs} jobs at ${options.rate} jobs/s`);
      const steadyCpu = measureCpu(server.pid, postgres);
      const steady = await submitMore(options.steadyJobs, "steady");
      const steadyCpuUse = steadyCpu();
      const steadyTimes = await readAllJobTimes(
        server,
        steady.jobs.map((j) => j.jobId),
      );

      progress(`${nodes} node(s): ${options.burstJobs} jobs from ${options.connections} clients`);
      const burstLiveness = probeLiveness(server.baseUrl);
      const database = databaseUrl ? await measureDatabase(databaseUrl, withStatements) : undefined;
      const burstCpu = measureCpu(server.pid, postgres);
      const fromUs = monotonicMicros();
      const burst = await submitMore(options.burstJobs, "burst");
      burstWindow = { fromUs, toUs: monotonicMicros() };
      const burstCpuUse = burstCpu();
      const databaseUse = await database?.();
      const liveDuringBurst = await burstLiveness();

      // After the burst's figures are taken, so its CPU per job does not include this one job.
      progress(`${nodes} node(s): one worst-case text-summarize job`);
      const worstLiveness = probeLiveness(server.baseUrl);
      const worst = await submitJobTo(server.baseUrl, server.apiKey, 0, worstCaseSummarize);
      submitted += 1;
      await waitUntilFinal(server, submitted, options.timeoutMs);
      const liveDuringWorst = await worstLiveness();
      const worstTimes = await readJobTimes(server, worst.jobId);

      const burstTimes = await readAllJobTimes(
        server,
        burst.jobs.map((j) => j.jobId),
      );
      const created = burstTimes.map((t) => t.created);
      const first = Math.min(...created);
      // A failed job has no completion; the span runs to the last one that completed (or was delivered).
      const lastCompleted = Math.max(...burstTimes.map((t) => t.completed).filter(Number.isFinite));
      const spanMs = Math.max(lastCompleted, burst.delivered?.lastAt ?? 0) - first;

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
          receipts: burst.delivered?.receipts,
        },
        liveness: {
          idle: idleLiveness,
          burst: liveDuringBurst,
          worstCase: liveDuringWorst,
          worstCaseJob: {
            ok: worstTimes.ok,
            providerMs: worstTimes.providerMs,
            createdToCompletedMs: worstTimes.completed - worstTimes.created,
          },
        },
        database: databaseUse
          ? {
              statements: databaseUse.statements,
              walBytesPerJob: databaseUse.walBytes / burstTimes.length,
              tableWrites: [],
              jobsInDatabase: 0,
            }
          : undefined,
      };
    },
    cpuProfileDir,
    addTableWrites,
  );
  return cpuProfileDir ? { ...results, profile: summarizeProfiles(cpuProfileDir, burstWindow) } : results;
}

/** The product's phase on one checkout (`server.mjs`, no warm-up; then warmed, with `warm`). */
function productPhase(root: string, warm: boolean): Promise<ProductResult> {
  return benchProduct(
    {
      root,
      adminUrl,
      steady: { rate: options.rate, count: options.steadyJobs },
      burst: { count: options.burstJobs, submitters: options.connections },
      timeoutMs: options.timeoutMs,
      warmupJobs: warm ? options.warmupJobs : undefined,
      hooks,
      progress: (message) => report(`${root === process.cwd() ? "" : "baseline "}${message}`),
    },
    cleanups,
  );
}

async function main() {
  const rerun = rerunOnSupportedNode(report);
  if (rerun !== undefined) process.exit(rerun);
  let privatePostgres: PrivatePostgres | undefined;
  if (options.privatePostgres) {
    progress(
      `starting a private PostgreSQL cluster on 127.0.0.1:${options.privatePostgresPort} with pg_stat_statements`,
    );
    // fsync on, as a real server has it (the fault suite's clusters turn it off).
    privatePostgres = await createPrivatePostgres(options.privatePostgresPort, {
      shared_preload_libraries: "pg_stat_statements",
      fsync: "on",
      "pg_stat_statements.track": "all",
      "pg_stat_statements.track_planning": "on",
    });
    const stopCluster = async () => privatePostgres?.destroy();
    cleanups.add(stopCluster);
    adminUrl = privatePostgres.adminUrl;
  }
  if (options.webhook) hooks = await startCompletionHooks();
  try {
    if (switchedOn("growth")) await runGrowth();
    else await runBench(Boolean(privatePostgres));
  } finally {
    await privatePostgres?.destroy();
    await hooks?.close();
  }
}

/** `--growth`: the same server empty and after a seeded history (bench/growth.ts), its own section. */
async function runGrowth() {
  if (!adminUrl) throw new Error("--growth measures on PostgreSQL: set DATABASE_URL (or --private-postgres)");
  const machine = await describeMachine(options.privatePostgres);
  progress(`growth: ${machine.driver}; load average ${machine.loadAverage.map((l) => l.toFixed(2)).join(", ")}`);
  const result = await benchGrowth(
    {
      adminUrl,
      jobs: positiveNumber("growth-jobs", 1_000_000),
      runs: positiveNumber("growth-runs", 15),
      drainJobs: 300,
      drainCycles: positiveNumber("growth-drains", 1),
      deepPages: 5000,
      progress,
    },
    cleanups,
  );
  const section = renderGrowth(result, machine.command, machine.date);
  process.stdout.write(`${section}\n`);
  writeSections(path.join(process.cwd(), documentFile), [{ name: "growth", body: section }]);
  progress(`wrote ${documentFile}`);
}

/** `--observability`: the product's phase observed and not, paired per round; its own section of the document. */
async function runObservability(machine: Machine) {
  let observedRuns = 0;
  const rounds = await benchObservability(
    options.rounds,
    parseVariants(flag("observed", "on") ?? "on"),
    async (observed, extra) => {
      const dir = profileDir(`observability-${observed}-${observedRuns++}`);
      const result = await benchProduct(
        {
          root: process.cwd(),
          adminUrl,
          steady: { rate: options.rate, count: options.steadyJobs },
          burst: { count: options.burstJobs, submitters: options.connections },
          timeoutMs: options.timeoutMs,
          warmupJobs: options.warmupJobs,
          ...extra,
          env: { ...extra.env, ...(dir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` } : {}) },
          progress: (message) => report(`observability ${observed}: ${message}`),
        },
        cleanups,
      );
      const window = result.burst.window;
      if (!dir || !window) return result;
      // The burst's window beside its profiles, for reading them by function afterwards.
      writeFileSync(path.join(dir, "burst-window.json"), JSON.stringify(window));
      return { ...result, profileByOwner: summarizeProfilesByOwner(dir, window) };
    },
  );
  const section = renderObservability(rounds, machine);
  process.stdout.write(`${section}\n`);
  writeSections(path.join(process.cwd(), documentFile), [
    { name: "bench:observability", body: section, after: driver === "pglite" ? "bench:pglite" : "bench:postgres" },
  ]);
  progress(`wrote ${documentFile}`);
}

async function runBench(privatePostgres: boolean) {
  const machine = await describeMachine(privatePostgres);
  progress(`driver: ${machine.driver}; load average ${machine.loadAverage.map((l) => l.toFixed(2)).join(", ")}`);
  if (options.observability) return runObservability(machine);
  const http = await benchHttp();
  const here = process.cwd();
  const rounds: PairedRound[] = [];
  // With a baseline: each phase on both trees back to back, in turn A B then B A (so a drift of the
  // machine's speed hits both alike), `--rounds` times; the report takes each round's ratio.
  for (let round = 0; round < (options.baseline ? options.rounds : 1); round++) {
    const trees = options.baseline ? [here, options.baseline] : [here];
    if (round % 2 === 1) trees.reverse();
    const results = new Map(trees.map((root) => [root, { nodes: [] as NodesResults[] } as Partial<TreeResults>]));
    for (const n of options.nodeCounts)
      for (const root of trees) results.get(root)?.nodes?.push(await benchNodes(n, root));
    for (const root of trees) {
      const tree = results.get(root);
      // Warmed too on this tree's first round only: the baseline's rounds compare fresh servers.
      if (tree) tree.product = await productPhase(root, round === 0 && root === here);
    }
    const of = (root: string) => results.get(root) as TreeResults;
    rounds.push({ here: of(here), baseline: options.baseline ? of(options.baseline) : of(here) });
  }
  const { nodes, product } = rounds[0].here;
  const baseline: BaselineResults | undefined = options.baseline ? { root: options.baseline, rounds } : undefined;
  const scaleOut: ScaleOutResult[] = [];
  const graphile: GraphileResult[] = [];
  let graphileFresh: GraphileResult | undefined;
  if (adminUrl) {
    for (const instances of options.instanceCounts) {
      scaleOut.push(
        await benchScaleOut(
          {
            adminUrl,
            instances,
            nodes: options.standaloneNodes,
            nodeConcurrency: options.standaloneConcurrency,
            burstJobs: options.burstJobs,
            warmupJobs: options.warmupJobs,
            submitters: options.connections,
            timeoutMs: options.timeoutMs,
            profileDir: profileDir(`scale-out-${instances}`),
            progress,
          },
          cleanups,
        ),
      );
    }
    // Before any other graphile-worker run: this process's JIT has not seen its code yet, as a fresh server's has not.
    progress(`graphile-worker: concurrency ${product.slots}, no warm-up`);
    graphileFresh = await benchGraphileWorker({
      adminUrl,
      concurrency: product.slots,
      steady: { rate: options.rate, count: options.steadyJobs },
      burst: { count: options.burstJobs, submitters: options.connections },
      warmupJobs: 0,
      timeoutMs: options.timeoutMs,
    });
    // At each concurrency of ours: the harness's node counts, and the product's default.
    const concurrencies = [...new Set([...nodes.map((n) => n.slots), product.slots])];
    for (const concurrency of concurrencies) {
      progress(`graphile-worker: concurrency ${concurrency}`);
      graphile.push(
        await benchGraphileWorker({
          adminUrl,
          concurrency,
          steady: { rate: options.rate, count: options.steadyJobs },
          burst: { count: options.burstJobs, submitters: options.connections },
          warmupJobs: options.warmupJobs,
          timeoutMs: options.timeoutMs,
        }),
      );
    }
  }
  const results: RunResults = {
    driver,
    title:
      (driver === "pglite"
        ? "Embedded database (PGlite)"
        : privatePostgres
          ? "PostgreSQL, private cluster with pg_stat_statements (`--private-postgres`)"
          : "PostgreSQL") +
      (options.baseline ? ", this tree against a baseline checkout (`--baseline`)" : "") +
      (hooks ? ", every completion delivered to a job.completed webhook (`--webhook`)" : ""),
    machine,
    http,
    nodes,
    product,
    baseline,
    warmupJobs: options.warmupJobs,
    quick: options.quick,
    scaleOut,
    graphile,
    graphileFresh,
    graphileVersion: adminUrl ? packageVersion("graphile-worker") : undefined,
    profileDir: options.profile ? path.relative(process.cwd(), profileRoot) : undefined,
  };
  const section = renderSection(results);
  process.stdout.write(`${section}\n`);
  // The private cluster's run has its own section: the shared server's run (the judge's) stays beside it.
  const kind = driver === "pglite" ? "bench:pglite" : privatePostgres ? "bench:postgres-private" : "bench:postgres";
  const after = {
    "bench:pglite": "bench:about",
    "bench:postgres": "bench:pglite",
    "bench:postgres-private": "bench:postgres",
  }[kind];
  // A comparison with another tree is its own section, beside the plain run of the same database.
  // So is a run whose completions were delivered to a webhook.
  const name = `${kind}${options.baseline ? "-vs-baseline" : ""}${hooks ? "-webhook" : ""}`;
  writeSections(path.join(process.cwd(), documentFile), [
    { name: "bench:about", body: aboutSection() },
    { name, body: section, after: options.baseline || hooks ? kind : after },
  ]);
  progress(`wrote ${documentFile}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
