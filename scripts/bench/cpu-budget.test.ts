import { describe, expect, it } from "vitest";
import type { CpuUse } from "./cpu";
import { cpuBoundJobsPerSecond, cpuBudgetMs, cpuPerJob } from "./cpu-budget";

// 500 jobs in 2 s on 2 cores: the server used 75 % of a core, PostgreSQL 60 %, the load generator 25 %.
const burst: CpuUse = { server: 75, postgres: 60, bench: 25, other: 5, capacity: 200, seconds: 2 };

describe("the CPU a job uses and the CPU a rate allows", () => {
  it("splits a burst's CPU per job among the server, PostgreSQL and the load generator", () => {
    expect(cpuPerJob(burst, 500)).toEqual({ server: 3, postgres: 2.4, loadGenerator: 1, total: 6.4 });
  });

  it("counts graphile-worker's process once: it is both the worker and its load generator", () => {
    expect(cpuPerJob({ ...burst, server: Number.NaN }, 500, { loadInServer: true })).toEqual({
      server: 1,
      postgres: 2.4,
      loadGenerator: 0,
      total: 3.4,
    });
  });

  it("allows 2 cores ÷ rate per job, and no more jobs/s than the cores can pay for", () => {
    expect(cpuBudgetMs(200, 500)).toBe(4);
    expect(cpuBoundJobsPerSecond(200, cpuPerJob(burst, 500))).toBeCloseTo(312.5, 5);
  });
});
