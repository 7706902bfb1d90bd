// Scale-out on PostgreSQL: N server instances sharing one database, standalone node processes (each
// attached to one instance over HTTP) and submissions spread over the instances. Measures end-to-end
// jobs/s, CPU per job of every process and of PostgreSQL, statements, rows and WAL per job, connections.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { promisify } from "node:util";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { startNodeProcess, type Child } from "@/tests/support/processes";
import { measureCpu, measureProcessesCpu, type CpuUse } from "./cpu";
import { readAllJobTimes, submitBurst, submitJobTo, waitUntilFinal } from "./jobs";
import {
  enableStatementStats,
  measureDatabase,
  readTableWrites,
  sampleConnections,
  trackBackendsCpu,
  withClient,
  type ConnectionPeak,
  type StatementReport,
  type TableWrites,
} from "./pg-stats";
import { monotonicMicros, summarizeProfiles, type ProfileSummary } from "./profile";
import { startServerInstance, startServerUnderTest, type ServerInstance } from "./server";

const run = promisify(execFile);

export interface ScaleOutOptions {
  adminUrl: string;
  instances: number;
  nodes: number;
  nodeConcurrency: number;
  burstJobs: number;
  /** Jobs run before measuring (warm JIT). */
  warmupJobs: number;
  submitters: number;
  timeoutMs: number;
  /** Where the servers' CPU profiles go (one directory for this phase), or undefined. */
  profileDir?: string;
  progress: (message: string) => void;
}

export interface ProcessCpu {
  name: string;
  /** CPU time of the process over the burst ÷ jobs. */
  msPerJob: number;
}

export interface DatabaseWork {
  /** Statements over the measured window (pg_stat_statements), when the server loads it. */
  statements?: StatementReport;
  /** WAL written by the whole cluster over the measured window ÷ jobs. */
  walBytesPerJob: number;
  /** Rows written over the database's life (warm-up included) ÷ every job it saw. */
  tableWrites: TableWrites[];
  jobsInDatabase: number;
}

export interface ScaleOutResult extends DatabaseWork {
  instances: number;
  nodes: number;
  nodeConcurrency: number;
  jobs: number;
  failed: number;
  spanMs: number;
  jobsPerSecond: number;
  processes: ProcessCpu[];
  postgresMsPerJob: number;
  cpu: CpuUse;
  connections: ConnectionPeak;
  profile?: ProfileSummary;
}

/** A node token from the operator command, run against the shared database. */
async function issueNodeToken(databaseUrl: string, name: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "scripts/node-token.ts", name, "--region", "bench"],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    },
  );
  return (JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { token: string }).token;
}

export async function benchScaleOut(o: ScaleOutOptions, cleanups: Set<() => Promise<void>>): Promise<ScaleOutResult> {
  const database = await createThrowawayDatabase(o.adminUrl, "en_bench_scale");
  const backends = trackBackendsCpu(database.url);
  const instances: ServerInstance[] = [];
  const nodes: Child[] = [];
  const stopAll = async () => {
    await Promise.allSettled(nodes.splice(0).map((n) => n.kill("SIGTERM")));
    await Promise.allSettled(instances.splice(0).map((s) => s.stop()));
  };
  const cleanUp = async () => {
    await stopAll();
    await backends.stop();
    await database.drop();
  };
  cleanups.add(cleanUp);
  try {
    if (o.profileDir) mkdirSync(o.profileDir, { recursive: true });
    const common = {
      driver: "postgres" as const,
      databaseUrl: database.url,
      embeddedNodes: 0,
      cpuProfileDir: o.profileDir,
    };
    // One after the other: the first applies the migrations.
    const first = await startServerUnderTest(common);
    instances.push(first);
    while (instances.length < o.instances) instances.push(await startServerInstance(common));
    for (let i = 0; i < o.nodes; i++) {
      const token = await issueNodeToken(database.url, `bench-node-${i + 1}`);
      const attachedTo = instances[i % instances.length].baseUrl;
      nodes.push(
        await startNodeProcess(attachedTo, token, [
          "--name",
          `bench-node-${i + 1}`,
          "--concurrency",
          String(o.nodeConcurrency),
        ]),
      );
    }
    const withStatements = await enableStatementStats(database.url);
    let submitted = 0;
    const burst = async (count: number) => {
      const base = submitted;
      submitted += count;
      // Round robin: submission i goes to instance i mod N.
      const jobs = await submitBurst(count, o.submitters, (i) =>
        submitJobTo(instances[(base + i) % instances.length].baseUrl, first.apiKey, base + i),
      );
      const final = await waitUntilFinal(first, submitted, o.timeoutMs);
      return { jobs, final };
    };

    o.progress(`scale-out, ${o.instances} instance(s): warming up`);
    const warm = await burst(o.warmupJobs);

    o.progress(`scale-out, ${o.instances} instance(s): ${o.burstJobs} jobs from ${o.submitters} clients`);
    const pids = [...instances.map((s) => s.pid ?? 0), ...nodes.map((n) => n.process.pid ?? 0)];
    const names = [...instances.map((_, i) => `instance ${i + 1}`), ...nodes.map((_, i) => `node ${i + 1}`)];
    const processCpu = measureProcessesCpu(pids);
    const machineCpu = measureCpu(undefined, backends);
    const connections = sampleConnections(database.url);
    const databaseWork = await measureDatabase(database.url, withStatements);
    const fromUs = monotonicMicros();
    const measured = await burst(o.burstJobs);
    const window = { fromUs, toUs: monotonicMicros() };
    const cpuSeconds = processCpu();
    const cpu = machineCpu();
    const { statements, walBytes } = await databaseWork();
    const peak = await connections();

    const times = await readAllJobTimes(
      first,
      measured.jobs.map((j) => j.jobId),
    );
    const created = times.map((t) => t.created);
    const spanMs = Math.max(...times.map((t) => t.completed).filter(Number.isFinite)) - Math.min(...created);
    const jobs = times.length;

    await stopAll();
    // Stopped backends have flushed their row counters.
    await new Promise((r) => setTimeout(r, 500));
    const tableWrites = await readTableWrites(database.url);
    const jobsInDatabase = await withClient(
      database.url,
      async (c) => (await c.query<{ n: number }>("select count(*)::int as n from jobs")).rows[0].n,
    );
    return {
      instances: o.instances,
      nodes: o.nodes,
      nodeConcurrency: o.nodeConcurrency,
      jobs,
      failed: measured.final.failed - warm.final.failed,
      spanMs,
      jobsPerSecond: (jobs / spanMs) * 1000,
      processes: names.map((name, i) => ({ name, msPerJob: (cpuSeconds[i] * 1000) / jobs })),
      postgresMsPerJob: ((cpu.postgres / 100) * cpu.seconds * 1000) / jobs,
      cpu,
      connections: peak,
      statements,
      walBytesPerJob: walBytes / jobs,
      tableWrites,
      jobsInDatabase,
      profile: o.profileDir ? summarizeProfiles(o.profileDir, window) : undefined,
    };
  } finally {
    cleanups.delete(cleanUp);
    await cleanUp();
  }
}
