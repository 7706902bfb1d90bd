// The product as users run it: `server.mjs` on a checkout's production build (built first when stale, as
// `npm start` does), a fresh database, the product's default embedded nodes, and no warm-up: measured from
// the fresh server's first job on. Jobs go over HTTP with an API key through the public API, and each is
// timed from its POST to its completion.
import { execFileSync } from "node:child_process";
import { parseEnv } from "@/lib/env";
import { signUpDeveloper, workloadScopes } from "@/tests/support/developer";
import { startNextServer, tempDataDir } from "@/tests/support/next-server";
import { createThrowawayDatabase } from "@/tests/support/postgres";
import type { CompletionHooks } from "./completion-hooks";
import { measureCpu } from "./cpu";
import { readAllJobTimes, submitBurst, submitJobTo, submitSteadily, waitUntilFinal } from "./jobs";
import { trackBackendsCpu } from "./pg-stats";
import { monotonicMicros } from "./profile";
import type { MeasuredPhases, ProductResult } from "./results";
import type { ServerUnderTest } from "./server";
import { summarize } from "./stats";

export interface ProductOptions {
  /** The checkout to serve. */
  root: string;
  /** PostgreSQL server for the throwaway database; PGlite (a fresh data directory) without it. */
  adminUrl?: string;
  steady: { rate: number; count: number };
  burst: { count: number; submitters: number };
  timeoutMs: number;
  /** Jobs to run unmeasured after the fresh server's figures, before measuring it again, warmed (none: no second measurement). */
  warmupJobs?: number;
  /** More of the server's environment (the observability phase: METRICS_TOKEN, OTEL_*). */
  env?: Record<string, string>;
  /** Started once the server is up, stopped before it is: what runs beside the jobs (a metrics scraper). */
  alongside?: (baseUrl: string) => () => Promise<void>;
  progress: (message: string) => void;
  /** `--webhook`: the developer's job.completed endpoint; a phase ends once its completed jobs are delivered. */
  hooks?: CompletionHooks;
}

/** `next build` in `root` unless its .next is up to date (the same check `npm start` makes). */
export function buildIfStale(root: string): void {
  execFileSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
}

/** Everything but the limits a bench would trip: no request rate limits, credit for any number of jobs. */
const benchEnv = { RATE_LIMIT_PER_MINUTE: "0", ACCOUNT_RATE_PER_MINUTE: "0", STARTER_CREDITS: String(10 ** 12) };

export async function benchProduct(
  options: ProductOptions,
  cleanups: Set<() => Promise<void>>,
): Promise<ProductResult> {
  const { progress, hooks } = options;
  buildIfStale(options.root);
  const defaults = parseEnv({ NODE_ENV: "production" });
  const data = tempDataDir();
  const database = options.adminUrl ? await createThrowawayDatabase(options.adminUrl, "en_bench_product") : undefined;
  const backends = database ? trackBackendsCpu(database.url) : undefined;
  const cleanUp = async () => {
    await backends?.stop();
    await database?.drop();
    data.remove();
  };
  cleanups.add(cleanUp);
  try {
    progress(`product: serving ${options.root}`);
    const spawned = performance.now();
    const next = await startNextServer({
      cwd: options.root,
      env: {
        DATA_DIR: data.dir,
        ...(database ? { DATABASE_URL: database.url } : {}),
        ...benchEnv,
        ...hooks?.serverEnv,
        ...options.env,
      },
    });
    const readyMs = performance.now() - spawned;
    // SIGTERM, as a deployment stops it (the embedded nodes drain, the database closes); SIGKILL if it hangs.
    const stop = async () => {
      let timer: NodeJS.Timeout | undefined;
      const hung = await Promise.race([
        next.stop("SIGTERM").then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), 15_000))),
      ]);
      clearTimeout(timer);
      if (hung) await next.stop("SIGKILL");
    };
    cleanups.add(stop);
    const stopAlongside = options.alongside?.(next.baseUrl);
    try {
      const developer = await signUpDeveloper(next.baseUrl, { name: "Bench Developer" });
      const apiKey = await developer.createApiKey(workloadScopes);
      await hooks?.register(developer);
      const server: ServerUnderTest = { baseUrl: next.baseUrl, pid: next.process.pid, stop, developer, apiKey };
      let submitted = 0;
      /** `--webhook`: waits until those of `jobs` that completed (all but `failed`) have been delivered. */
      const delivered = async (jobs: { jobId: string }[], failed: number) =>
        hooks?.delivered(
          jobs.map((j) => j.jobId),
          jobs.length - failed,
          options.timeoutMs,
        );
      /** POST job `i`, remembering when it left (the bench's clock, the same machine's as the database's). */
      const submit = async (i: number) => {
        const sentAt = Date.now();
        return { ...(await submitJobTo(server.baseUrl, apiKey, i)), sentAt };
      };

      progress("product: the first job");
      const [first] = await submitSteadily(1, 1, submit);
      submitted += 1;
      await delivered([first], (await waitUntilFinal(server, submitted, options.timeoutMs)).failed);
      const [firstTimes] = await readAllJobTimes(server, [first.jobId]);

      /** The steady arrivals (overhead, POST → completed), then the burst (jobs/s, CPU per job). */
      const measure = async (label: string): Promise<MeasuredPhases> => {
        progress(`product${label}: ${options.steady.count} jobs at ${options.steady.rate} jobs/s`);
        const failedBefore = (await waitUntilFinal(server, submitted, options.timeoutMs)).failed;
        const steady = await submitSteadily(options.steady.rate, options.steady.count, (i) => submit(submitted + i));
        submitted += steady.length;
        const steadyFinal = await waitUntilFinal(server, submitted, options.timeoutMs);
        await delivered(steady, steadyFinal.failed - failedBefore);
        const steadyTimes = await readAllJobTimes(
          server,
          steady.map((s) => s.jobId),
        );

        progress(`product${label}: ${options.burst.count} jobs from ${options.burst.submitters} clients`);
        const cpu = measureCpu(next.process.pid, backends ?? false);
        const fromUs = monotonicMicros();
        const burst = await submitBurst(options.burst.count, options.burst.submitters, (i) => submit(submitted + i));
        submitted += burst.length;
        const burstFinal = await waitUntilFinal(server, submitted, options.timeoutMs);
        const burstDelivered = await delivered(burst, burstFinal.failed - steadyFinal.failed);
        const burstCpu = cpu();
        const window = { fromUs, toUs: monotonicMicros() };
        const burstTimes = await readAllJobTimes(
          server,
          burst.map((s) => s.jobId),
        );
        const firstSent = Math.min(...burst.map((s) => s.sentAt));
        // A failed job has no completion; the span runs to the last one that completed (or was delivered).
        const lastCompleted = Math.max(...burstTimes.map((t) => t.completed).filter(Number.isFinite));
        const spanMs = Math.max(lastCompleted, burstDelivered?.lastAt ?? 0) - firstSent;
        return {
          steady: {
            rate: options.steady.rate,
            count: options.steady.count,
            overhead: summarize(steadyTimes.map((t) => t.started - t.created)),
            submitToCompleted: summarize(steadyTimes.map((t, i) => t.completed - steady[i].sentAt)),
            failed: steadyFinal.failed - failedBefore,
          },
          burst: {
            jobs: burst.length,
            submitters: options.burst.submitters,
            spanMs,
            submitWindowMs: Math.max(...burst.map((s) => s.sentAt + s.submitMs)) - firstSent,
            jobsPerSecond: (burst.length / spanMs) * 1000,
            failed: burstFinal.failed - steadyFinal.failed,
            cpu: burstCpu,
            window,
            receipts: burstDelivered?.receipts,
          },
        };
      };
      const cold = await measure("");
      let warmed: ProductResult["warmed"];
      if (options.warmupJobs) {
        // The same server after as many unmeasured jobs as the harness runs: what a server that has been
        // running costs, beside what a fresh one costs (V8 optimises a hot path only after many calls).
        progress(`product: ${options.warmupJobs} unmeasured jobs`);
        const afterJobs = submitted;
        const failedBefore = (await waitUntilFinal(server, submitted, options.timeoutMs)).failed;
        const unmeasured = await submitBurst(options.warmupJobs, options.burst.submitters, (i) =>
          submit(submitted + i),
        );
        submitted += options.warmupJobs;
        if (hooks)
          await delivered(
            unmeasured,
            (await waitUntilFinal(server, submitted, options.timeoutMs)).failed - failedBefore,
          );
        warmed = {
          afterJobs: afterJobs + options.warmupJobs,
          unmeasuredJobs: options.warmupJobs,
          ...(await measure(", warmed")),
        };
      }
      return {
        root: options.root,
        nodes: defaults.EMBEDDED_NODES,
        slots: defaults.EMBEDDED_NODES * defaults.EMBEDDED_NODE_CONCURRENCY,
        readyMs,
        firstJobMs: firstTimes.completed - first.sentAt,
        ...cold,
        warmed,
      };
    } finally {
      await stopAlongside?.();
      cleanups.delete(stop);
      await stop();
    }
  } finally {
    cleanups.delete(cleanUp);
    await cleanUp();
  }
}
