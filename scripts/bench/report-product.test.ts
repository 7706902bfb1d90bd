import { describe, expect, it } from "vitest";
import type { CpuUse } from "./cpu";
import type { GraphileResult } from "./graphile";
import { aimPairings, pipelineLine } from "./report-product";
import type { MeasuredPhases, ProductResult, RunResults } from "./results";
import { summarize } from "./stats";

const cpu: CpuUse = { server: 100, postgres: 50, bench: 30, other: 0, capacity: 200, seconds: 1 };

function ours(jobsPerSecond: number, overheadMs: number): MeasuredPhases {
  return {
    steady: { rate: 10, count: 3, overhead: summarize([overheadMs]), submitToCompleted: summarize([9]), failed: 0 },
    burst: { jobs: 300, submitters: 10, spanMs: 1000, submitWindowMs: 900, jobsPerSecond, failed: 0, cpu },
  };
}

function graphile(jobsPerSecond: number, overheadMs: number): GraphileResult {
  return {
    concurrency: 4,
    overhead: summarize([overheadMs]),
    addToStart: summarize([overheadMs]),
    burst: { jobs: 300, spanMs: 300, jobsPerSecond, submitWindowMs: 250, cpu },
  };
}

/** A PostgreSQL run: `server.mjs` fresh (and warmed), graphile-worker warmed (and fresh). */
function run(
  fresh: MeasuredPhases,
  warmed: MeasuredPhases | undefined,
  worker: GraphileResult,
  freshWorker?: GraphileResult,
) {
  const product: ProductResult = {
    root: "/checkout",
    nodes: 1,
    slots: 4,
    readyMs: 5000,
    firstJobMs: 300,
    ...fresh,
    warmed: warmed && { ...warmed, afterJobs: 1401, unmeasuredJobs: 1000 },
  };
  return { product, nodes: [], graphile: [worker], graphileFresh: freshWorker } as unknown as RunResults;
}

const verdicts = (r: RunResults) => aimPairings(r).map((p) => [p.name, Number(p.throughput.toFixed(2)), p.met]);

describe("issue 22's aim, judged on every pairing of warmth the run has", () => {
  it("compares a fresh server.mjs with a fresh worker, and a warmed one with a warmed one", () => {
    const r = run(ours(300, 2), ours(400, 2), graphile(800, 2), graphile(500, 3));
    expect(verdicts(r)).toEqual([
      ["fresh against fresh", 0.6, true],
      ["warmed against warmed", 0.5, true],
      ["fresh against warmed", 0.38, false],
    ]);
  });

  it("is not met by a pairing whose overhead p50 is above graphile-worker's, whatever the jobs/s", () => {
    const [freshPair] = aimPairings(run(ours(600, 4), undefined, graphile(800, 3), graphile(600, 3)));
    expect(freshPair).toMatchObject({ name: "fresh against fresh", throughput: 1, met: false });
    expect(freshPair.overhead).toBeCloseTo(4 / 3, 5);
  });

  it("leaves out a pairing the run did not measure (no warmed server, no fresh worker)", () => {
    expect(verdicts(run(ours(500, 2), undefined, graphile(800, 2)))).toEqual([["fresh against warmed", 0.63, true]]);
  });
});

describe("issue 43's bar: the queue kept where the issue's probe put it, judged on every pairing", () => {
  const kept = (r: RunResults) => aimPairings(r).map((p) => [p.name, Number(p.overheadAvg.toFixed(2)), p.kept]);

  it("judges the overhead by its average, which a whole-millisecond p50 cannot resolve", () => {
    const steady = (ms: number[]) => summarize(ms);
    const fresh = { ...ours(600, 3), steady: { ...ours(600, 3).steady, overhead: steady([2, 2, 3, 3, 3]) } };
    const worker = { ...graphile(800, 3), overhead: steady([3, 3, 3, 3, 4]) };
    // p50 3 ms against 3 ms (1.00×), average 2.6 ms against 3.2 ms (0.81×).
    expect(kept(run(fresh, undefined, worker))).toEqual([["fresh against warmed", 0.81, true]]);
  });

  it("leaves one stray wait out of the average, which would otherwise flatter whichever queue did not have it", () => {
    const fresh = { ...ours(600, 3), steady: { ...ours(600, 3).steady, overhead: summarize(Array(20).fill(3)) } };
    // Twenty jobs started 3 ms after they were added, one 100 ms after (a plain average: 7.6 ms).
    const worker = { ...graphile(800, 3), overhead: summarize([...Array(20).fill(3), 100]) };
    expect(kept(run(fresh, undefined, worker))).toEqual([["fresh against warmed", 1, false]]);
  });

  it("is missed by a pairing whose average overhead is above the bar, or whose jobs/s is below it", () => {
    const r = run(ours(600, 2), ours(300, 1.5), graphile(800, 2), graphile(600, 3));
    expect(kept(r)).toEqual([
      ["fresh against fresh", 0.67, true],
      // 300/s against 800/s: 0.38×, below the bar's 0.51×, though its overhead is 0.75×.
      ["warmed against warmed", 0.75, false],
      // 600/s against 800/s (0.75×), but an overhead as long as theirs.
      ["fresh against warmed", 1, false],
    ]);
  });
});

describe("what Next.js's request pipeline costs, beside the harness", () => {
  const withServerCpu = (phases: MeasuredPhases, server: number): MeasuredPhases => ({
    ...phases,
    burst: { ...phases.burst, cpu: { ...cpu, server } },
  });
  const withHarness = (r: RunResults, server: number) =>
    ({ ...r, nodes: [{ slots: 4, burst: { jobs: 300, cpu: { ...cpu, server } } }] }) as unknown as RunResults;

  it("says how far above or below the harness a fresh and a warmed server are, never a share over 100 %", () => {
    // Per job: fresh 2.50 ms, warmed 1.90 ms, harness 2.33 ms (300 jobs in 1 s).
    const r = run(withServerCpu(ours(300, 2), 75), withServerCpu(ours(400, 2), 57), graphile(800, 2));
    const [line] = pipelineLine(withHarness(r, 70));
    expect(line).toContain("used 2.50 ms, 0.17 ms above the harness; warmed, 0.43 ms below it.");
    expect(line).not.toMatch(/%/);
  });
});
