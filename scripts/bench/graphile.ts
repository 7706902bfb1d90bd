// The reference queue: graphile-worker on the same PostgreSQL server (its own throwaway database), with
// no-op jobs, driven with the same arrival patterns and the same concurrency as our nodes.
import { EventEmitter } from "node:events";
import { Logger, makeWorkerUtils, run, type WorkerEvents } from "graphile-worker";
import pg from "pg";
import { measureCpu, type CpuUse } from "./cpu";
import { submitBurst, submitSteadily } from "./jobs";
import { trackBackendsCpu } from "./pg-stats";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import { summarize, type Summary } from "./stats";
import { setTimeout as sleep } from "node:timers/promises";

export interface GraphileResult {
  concurrency: number;
  /** created_at (the database's clock at add_job) → job:start, steady arrivals. */
  overhead: Summary;
  /** addJob() called → job:start, steady arrivals (what graphile-worker's own latency figure measures). */
  addToStart: Summary;
  burst: { jobs: number; spanMs: number; jobsPerSecond: number; submitWindowMs: number; cpu: CpuUse };
}

export interface GraphileOptions {
  adminUrl: string;
  concurrency: number;
  steady: { rate: number; count: number };
  burst: { count: number; submitters: number };
  /** Jobs run before measuring (warm JIT). */
  warmupJobs: number;
  timeoutMs: number;
}

export async function benchGraphileWorker(options: GraphileOptions): Promise<GraphileResult> {
  const database = await createThrowawayDatabase(options.adminUrl, "en_bench_gw");
  const backends = trackBackendsCpu(database.url);
  const errors: string[] = [];
  const logger = new Logger(() => (level, message) => {
    if (level === "error") errors.push(message);
  });
  const started = new Map<string, { created: number; at: number }>();
  const completed = new Map<string, number>();
  const events: WorkerEvents = new EventEmitter();
  events.on("job:start", ({ job }) => started.set(job.id, { created: job.created_at.getTime(), at: Date.now() }));
  events.on("job:complete", ({ job }) => completed.set(job.id, Date.now()));

  // Our own pools (the worker's the size of our server's), ended before the database is dropped: a pool
  // left to graphile-worker could still hold a connection that the drop terminates.
  const pools = [0, 1].map(() => {
    const pool = new pg.Pool({ connectionString: database.url, max: 10 });
    pool.on("error", (error) => errors.push(error.message));
    return pool;
  });
  const [workerPool, adderPool] = pools;
  const utils = await makeWorkerUtils({ pgPool: adderPool, logger });
  let runner: Awaited<ReturnType<typeof run>> | undefined;
  try {
    await utils.migrate();
    runner = await run({
      pgPool: workerPool,
      concurrency: options.concurrency,
      noHandleSignals: true,
      logger,
      events,
      taskList: { noop: async () => undefined },
    });
    const add = async (i: number) => {
      const calledAt = Date.now();
      const job = await utils.addJob("noop", { i });
      return { id: job.id, calledAt };
    };
    const waitFor = async (ids: string[]) => {
      const deadline = Date.now() + options.timeoutMs;
      let delay = 5;
      while (!ids.every((id) => completed.has(id))) {
        if (errors.length) throw new Error(`graphile-worker: ${errors[0]}`);
        if (Date.now() > deadline)
          throw new Error(`graphile-worker did not finish ${ids.length} jobs in ${options.timeoutMs} ms`);
        await sleep(delay);
        delay = Math.min(100, delay * 2);
      }
    };

    // Warm-up (connections, prepared statements, JIT), not measured.
    await waitFor((await submitBurst(options.warmupJobs, options.burst.submitters, add)).map((a) => a.id));

    const steady = await submitSteadily(options.steady.rate, options.steady.count, add);
    await waitFor(steady.map((a) => a.id));
    const startOf = (id: string) => started.get(id) ?? { created: Number.NaN, at: Number.NaN };
    const overhead = summarize(steady.map((a) => startOf(a.id).at - startOf(a.id).created));
    const addToStart = summarize(steady.map((a) => startOf(a.id).at - a.calledAt));

    const cpu = measureCpu(undefined, backends);
    const burst = await submitBurst(options.burst.count, options.burst.submitters, add);
    await waitFor(burst.map((a) => a.id));
    const used = cpu();
    const created = burst.map((a) => startOf(a.id).created);
    const first = Math.min(...created);
    const spanMs = Math.max(...burst.map((a) => completed.get(a.id) ?? Number.NaN)) - first;
    return {
      concurrency: options.concurrency,
      overhead,
      addToStart,
      burst: {
        jobs: burst.length,
        spanMs,
        jobsPerSecond: (burst.length / spanMs) * 1000,
        submitWindowMs: Math.max(...created) - first,
        cpu: used,
      },
    };
  } finally {
    await runner?.stop();
    await utils.release();
    await Promise.all(pools.map((pool) => pool.end()));
    await backends.stop();
    await database.drop();
  }
}
