// The CPU a rate allows: the server, PostgreSQL and the load generator share the machine's cores, so a rate of
// R jobs/s is reachable only if every job uses at most cores ÷ R of CPU among them. Set beside what a job used,
// it tells whether a rate is out of reach on this machine before any code is read.
import type { CpuUse } from "./cpu";

export interface CpuPerJob {
  /** The process under test (for graphile-worker, the bench process: its worker and its load generator). */
  server: number;
  postgres: number;
  /** The load generator, when it is a process of its own. */
  loadGenerator: number;
  total: number;
}

/** Milliseconds of CPU per job over a burst of `jobs`, each process's share of the window. */
export function cpuPerJob(c: CpuUse, jobs: number, options: { loadInServer?: boolean } = {}): CpuPerJob {
  const perJob = (percentOfCore: number) =>
    Number.isFinite(percentOfCore) ? ((percentOfCore / 100) * c.seconds * 1000) / jobs : 0;
  const server = perJob(options.loadInServer ? c.bench : c.server);
  const postgres = perJob(c.postgres);
  const loadGenerator = options.loadInServer ? 0 : perJob(c.bench);
  return { server, postgres, loadGenerator, total: server + postgres + loadGenerator };
}

/** The most CPU a job may use, in ms, for `jobsPerSecond` on a machine of `capacity` (cores × 100). */
export const cpuBudgetMs = (capacity: number, jobsPerSecond: number): number =>
  ((capacity / 100) * 1000) / jobsPerSecond;

/** The highest rate a job's CPU allows on the machine, however well its waits overlap. */
export const cpuBoundJobsPerSecond = (capacity: number, perJob: CpuPerJob): number =>
  ((capacity / 100) * 1000) / perJob.total;
