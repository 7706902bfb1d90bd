// Turns one run's measurements into Markdown: printed to the terminal and written into docs/benchmarks.md,
// where each driver (PGlite, PostgreSQL) keeps its own section so the two runs complement each other.
import type { CpuUse } from "./cpu";
import type { LoadResult } from "./http-load";
import { productSection } from "./report-product";
import { beyondOneMachineSection, scaleOutSection } from "./report-scale-out";
import { databaseSection, livenessSection, profileSection } from "./report-work";
import type { RunResults } from "./results";
import { ms, nodesLabel, percent, perSecond, ratio, table, type Summary } from "./stats";

const p50p99 = (s: Summary) => `${ms(s.p50)} / ${ms(s.p99)}`;
const cpuMsPerJob = (percentOfCore: number, c: CpuUse, jobs: number) =>
  ((percentOfCore / 100) * c.seconds * 1000) / jobs;
const cpuCells = (c: CpuUse) => [percent(c.server), percent(c.postgres), percent(c.bench), percent(c.other)];

function httpSection(r: RunResults): string {
  const { http } = r;
  const row = (name: string, l: LoadResult) => [
    name,
    perSecond(l.requestsPerSecond),
    ms(l.latency.p50),
    ms(l.latency.p99),
    String(l.non2xx + l.errors),
    ...cpuCells(l.cpu),
  ];
  return [
    `### Submit throughput against a trivial route (autocannon, ${http.connections} connections, ${http.durationSeconds} s each)`,
    "",
    "Server with no nodes (jobs stay queued for routing), so the figures are the API's own cost. " +
      "CPU columns: percent of one core, over the measured window.",
    "",
    table(
      [
        "route",
        "req/s",
        "p50",
        "p99",
        "non-2xx/errors",
        "server CPU",
        "PostgreSQL CPU",
        "load generator CPU",
        "other processes CPU",
      ],
      [
        row("GET /api/health/live", http.health),
        row("POST /api/marketplace/services/token-count/execute", http.execute),
        [
          "**execute ÷ health**",
          `**${ratio(http.execute.requestsPerSecond, http.health.requestsPerSecond)}**`,
          `**${ratio(http.execute.latency.p50, http.health.latency.p50)}**`,
          `**${ratio(http.execute.latency.p99, http.health.latency.p99)}**`,
          "",
          "",
          "",
          "",
          "",
        ],
      ],
    ),
  ].join("\n");
}

function overheadSection(r: RunResults): string {
  const steady = r.nodes[0]?.steady;
  const rows = r.nodes.map((n) => [
    `ours, ${nodesLabel(n.nodes)}`,
    String(n.slots),
    ms(n.steady.overhead.p50),
    ms(n.steady.overhead.p99),
    ms(n.steady.overhead.avg),
    ms(n.steady.overhead.max),
    p50p99(n.steady.createdToAssigned),
    p50p99(n.steady.assignedToStarted),
    p50p99(n.steady.submit),
    percent(n.steady.cpu.server),
  ]);
  const graphileRow = (name: string, concurrency: number, s: Summary) => [
    name,
    String(concurrency),
    ms(s.p50),
    ms(s.p99),
    ms(s.avg),
    ms(s.max),
    "",
    "",
    "",
    "",
  ];
  for (const g of r.graphile) {
    rows.push(graphileRow("graphile-worker, created_at → start", g.concurrency, g.overhead));
    rows.push(graphileRow("graphile-worker, addJob() → start", g.concurrency, g.addToStart));
  }
  return [
    `### Queue overhead: created → EXECUTION_STARTED (${steady?.count ?? 0} jobs at a steady ${steady?.rate ?? 0} jobs/s)`,
    "",
    "From each job's telemetry (JOB_CREATED and EXECUTION_STARTED timestamps, millisecond resolution, the database's " +
      "clock at the start of each writing transaction); submissions leave on schedule whatever earlier ones are doing. " +
      "For graphile-worker: the job row's created_at (same clock) and the `job:start` event, and its own definition " +
      "(addJob() called → start).",
    "",
    table(
      [
        "queue",
        "concurrency",
        "p50",
        "p99",
        "avg",
        "max",
        "created → assigned p50 / p99",
        "assigned → started p50 / p99",
        "submit round trip p50 / p99",
        "server CPU",
      ],
      rows,
    ),
  ].join("\n");
}

function drainSection(r: RunResults): string {
  const first = r.nodes[0]?.burst;
  const rows = r.nodes.map((n) => [
    `ours, ${nodesLabel(n.nodes)}`,
    String(n.slots),
    `**${perSecond(n.burst.jobsPerSecond)}**`,
    ms(n.burst.spanMs),
    ms(n.burst.submitWindowMs),
    String(n.burst.failed),
    ms(n.burst.providerMs.p50),
    ms(cpuMsPerJob(n.burst.cpu.server, n.burst.cpu, n.burst.jobs)),
    ms(cpuMsPerJob(n.burst.cpu.postgres, n.burst.cpu, n.burst.jobs)),
    ...cpuCells(n.burst.cpu),
  ]);
  for (const g of r.graphile) {
    rows.push([
      "graphile-worker (no-op jobs)",
      String(g.concurrency),
      `**${perSecond(g.burst.jobsPerSecond)}**`,
      ms(g.burst.spanMs),
      ms(g.burst.submitWindowMs),
      "0",
      "(no-op)",
      ms(cpuMsPerJob(g.burst.cpu.bench, g.burst.cpu, g.burst.jobs)),
      ms(cpuMsPerJob(g.burst.cpu.postgres, g.burst.cpu, g.burst.jobs)),
      ...cpuCells(g.burst.cpu),
    ]);
  }
  return [
    `### End-to-end: ${first?.jobs ?? 0} token-count jobs submitted while the nodes run`,
    "",
    `${first?.submitters ?? 0} clients submit back to back while the nodes drain; jobs/s = jobs ÷ (first JOB_CREATED → last ` +
      "EXECUTION_COMPLETED, from telemetry). graphile-worker: first created_at → last `job:complete`; its worker runs " +
      "inside the load generator's process. CPU per job = CPU time over the window ÷ jobs, for the app (our server " +
      "process: HTTP submission, coordinator and nodes; for graphile-worker, the process that adds and runs the jobs) " +
      "and for PostgreSQL (the backends serving this run's database, followed through pg_stat_activity, so other work on a " +
      "shared server does not count; its background writer and WAL writer are not included): less sensitive than jobs/s to what else runs on the machine. Provider-reported time: the " +
      "PROVIDER_REQUEST latencyMs of each job, wall time inside the provider, which includes waiting for the server's " +
      "busy event loop (the embedded nodes share it), not only counting tokens.",
    "",
    table(
      [
        "queue",
        "concurrency",
        "jobs/s",
        "first created → last completed",
        "submission window",
        "failed",
        "provider-reported time p50",
        "app CPU per job",
        "PostgreSQL CPU per job",
        "server CPU",
        "PostgreSQL CPU",
        "load generator CPU",
        "other processes CPU",
      ],
      rows,
    ),
  ].join("\n");
}

function comparisonSection(r: RunResults): string {
  if (r.graphile.length === 0) return "";
  const rows: string[][] = [];
  r.nodes.forEach((n) => {
    const g = r.graphile.find((x) => x.concurrency === n.slots);
    if (!g) return;
    rows.push([
      `${nodesLabel(n.nodes)} vs concurrency ${g.concurrency}`,
      ratio(n.steady.overhead.p50, g.overhead.p50),
      ratio(n.steady.overhead.p99, g.overhead.p99),
      ratio(n.steady.overhead.avg, g.addToStart.avg),
      ratio(n.burst.jobsPerSecond, g.burst.jobsPerSecond),
    ]);
  });
  return [
    `### Ours as a ratio to graphile-worker ${r.graphileVersion ?? ""} (same PostgreSQL server, same run)`,
    "",
    "Overhead ratios above 1× mean we are slower; the throughput ratio below 1× means we drain fewer jobs per second.",
    "",
    table(["pairing", "overhead p50", "overhead p99", "overhead avg ÷ its add-to-start avg", "jobs/s"], rows),
  ].join("\n");
}

/** Issue 13's targets: on PostgreSQL, and (looser, one process doing everything) on PGlite. */
const targets = {
  postgres: {
    overheadP50: 5,
    overheadP99: 20,
    jobsPerSecond: 300,
    ofGraphile: 0.4,
    appCpuMs: 3,
    databaseCpuMs: 2,
    executeOfTrivial: 0.25,
  },
  pglite: {
    overheadP50: 10,
    overheadP99: undefined,
    jobsPerSecond: 150,
    ofGraphile: undefined,
    appCpuMs: undefined,
    databaseCpuMs: undefined,
    executeOfTrivial: 0.25,
  },
};

/** Verdicts computed from this run's figures against issue 13's targets (the throughput ones: with the most nodes). */
function standingSection(r: RunResults): string {
  const lines: string[] = [];
  const verdict = (ok: boolean) => (ok ? "met" : "**not met**");
  const aim = targets[r.driver === "pglite" ? "pglite" : "postgres"];
  const most = Math.max(...r.nodes.map((n) => n.nodes));
  for (const n of r.nodes) {
    const o = n.steady.overhead;
    const label = nodesLabel(n.nodes);
    const p99 =
      aim.overheadP99 === undefined
        ? ms(o.p99)
        : `${ms(o.p99)} (target ≤ ${aim.overheadP99} ms: ${verdict(o.p99 <= aim.overheadP99)})`;
    lines.push(
      `- Queue overhead, ${label}: p50 ${ms(o.p50)} (target ≤ ${aim.overheadP50} ms: ${verdict(o.p50 <= aim.overheadP50)}), p99 ${p99}.`,
    );
    const toAssigned = n.steady.createdToAssigned.p50;
    const toStarted = n.steady.assignedToStarted.p50;
    lines.push(
      `  Of the median, created → assigned (submission commit, wake-up, claim) is ${ms(toAssigned)} and assigned → started (the node's start report) ${ms(toStarted)}.`,
    );
    const judged = n.nodes === most;
    const throughput = judged
      ? ` (target ≥ ${aim.jobsPerSecond}/s: ${verdict(n.burst.jobsPerSecond >= aim.jobsPerSecond)})`
      : "";
    const g = r.graphile.find((x) => x.concurrency === n.slots);
    if (g) {
      const x = n.burst.jobsPerSecond / g.burst.jobsPerSecond;
      const ofGraphile =
        judged && aim.ofGraphile !== undefined ? `; target ≥ ${aim.ofGraphile}×: ${verdict(x >= aim.ofGraphile)}` : "";
      lines.push(
        `- Throughput, ${label}: ${perSecond(n.burst.jobsPerSecond)}${throughput} vs graphile-worker's ${perSecond(g.burst.jobsPerSecond)} at concurrency ${g.concurrency} (${x.toFixed(2)}×${ofGraphile}).`,
      );
      const ours = {
        app: cpuMsPerJob(n.burst.cpu.server, n.burst.cpu, n.burst.jobs),
        db: cpuMsPerJob(n.burst.cpu.postgres, n.burst.cpu, n.burst.jobs),
      };
      const theirs = {
        app: cpuMsPerJob(g.burst.cpu.bench, g.burst.cpu, g.burst.jobs),
        db: cpuMsPerJob(g.burst.cpu.postgres, g.burst.cpu, g.burst.jobs),
      };
      const cpuTargets =
        judged && aim.appCpuMs !== undefined && aim.databaseCpuMs !== undefined
          ? ` (targets ≤ ${aim.appCpuMs} ms: ${verdict(ours.app <= aim.appCpuMs)}; ≤ ${aim.databaseCpuMs} ms: ${verdict(ours.db <= aim.databaseCpuMs)})`
          : "";
      lines.push(
        `  Per job we spend ${ms(ours.app)} of app CPU and ${ms(ours.db)} of PostgreSQL CPU${cpuTargets}; graphile-worker ${ms(theirs.app)} and ${ms(theirs.db)} ` +
          `(${ratio(ours.app + ours.db, theirs.app + theirs.db)} in total).`,
      );
    } else {
      lines.push(
        `- Throughput, ${label}: ${perSecond(n.burst.jobsPerSecond)}${throughput}; ${ms(cpuMsPerJob(n.burst.cpu.server, n.burst.cpu, n.burst.jobs))} of the server's CPU per job (the database's included).`,
      );
    }
    const c = n.burst.cpu;
    const limits: string[] = [];
    if (c.server >= 85)
      limits.push(
        `the server process used ${percent(c.server)} of a core: its event loop (HTTP, coordinator, nodes${r.driver === "pglite" ? " and the embedded database" : ""}) is the bottleneck`,
      );
    if (c.postgres >= 85) limits.push(`PostgreSQL used ${percent(c.postgres)} of a core`);
    if (c.other >= 50)
      limits.push(`other processes used ${percent(c.other)} of a core, so these figures are pessimistic`);
    if (limits.length) lines.push(`- While ${label} drained: ${limits.join("; ")}.`);
  }
  const api = r.http;
  const noisy = [api.health.cpu, api.execute.cpu, ...r.nodes.map((n) => n.steady.cpu)].some((c) => c.other >= 50);
  if (noisy)
    lines.push(
      "- Other processes took at least half a core during some phases (see the CPU columns): rerun on a quiet machine before comparing runs.",
    );
  const executeRatio = api.execute.requestsPerSecond / api.health.requestsPerSecond;
  lines.push(
    `- Submission throughput is ${ratio(api.execute.requestsPerSecond, api.health.requestsPerSecond)} the trivial route's ` +
      `(${perSecond(api.execute.requestsPerSecond)} vs ${perSecond(api.health.requestsPerSecond)}; target ≥ ${aim.executeOfTrivial}×: ${verdict(executeRatio >= aim.executeOfTrivial)}), ` +
      `with a p50 ${ratio(api.execute.latency.p50, api.health.latency.p50)} as long: the difference is the submission's database work.`,
  );
  return ["### Where we stand", "", ...lines].join("\n");
}

export function renderSection(r: RunResults): string {
  const m = r.machine;
  return [
    `## ${r.title}`,
    "",
    `Command: \`${m.command}\` — ${m.date}`,
    "",
    `Machine: ${m.cpuModel}, ${m.cores} cores, Node ${m.node}, driver ${m.driver}; load average at start ${m.loadAverage.map((l) => l.toFixed(2)).join(", ")}.`,
    "",
    productSection(r),
    "",
    httpSection(r),
    "",
    overheadSection(r),
    "",
    drainSection(r),
    "",
    livenessSection(r.nodes),
    "",
    scaleOutSection(r),
    "",
    comparisonSection(r),
    "",
    standingSection(r),
    "",
    workSection(r),
    "",
    beyondOneMachineSection(r),
  ]
    .filter((part, i, all) => !(part === "" && all[i - 1] === ""))
    .join("\n");
}

/** Where the time goes: the profiles (`--profile`) and PostgreSQL's work, for the largest embedded and scale-out phases. */
function workSection(r: RunResults): string {
  const nodes = r.nodes[r.nodes.length - 1];
  const scale = r.scaleOut[r.scaleOut.length - 1];
  const parts: string[] = [];
  if (nodes?.database)
    parts.push(databaseSection(`${nodes.nodes} embedded nodes, end-to-end burst`, nodes.database, nodes.burst.jobs));
  if (scale)
    parts.push(
      databaseSection(`${scale.instances} instances with standalone nodes, end-to-end burst`, scale, scale.jobs),
    );
  if (nodes?.profile) parts.push(profileSection(`the server with ${nodes.nodes} embedded nodes`, nodes.profile));
  if (scale?.profile)
    parts.push(
      profileSection(`the ${scale.instances} server instances of the scale-out (no nodes inside)`, scale.profile),
    );
  if (parts.length === 0) return "";
  const where = r.profileDir
    ? ` Profiles: \`${r.profileDir}/\` (open in Chrome DevTools or speedscope); a profiled run is slower than an unprofiled one.`
    : " Run with `--profile` for CPU profiles of the servers.";
  return ["### Where the time goes", "", `Measured in this run.${where}`, "", parts.join("\n\n")].join("\n");
}

/** The document's opening: how the bench measures (its own section, rewritten by every run). */
export function aboutSection(): string {
  return `Written by \`npm run bench\` (\`scripts/bench.ts\`): every figure in its sections was measured in the run that wrote
the section; nothing is copied in by hand. Run it once on the embedded database and once with \`DATABASE_URL\` set
(PostgreSQL, which also runs graphile-worker as the reference queue and the scale-out); each run replaces only its own
section, and every other section (the load soak's, notes) is kept as it is.

Commands (about 10 minutes for each full run on a 2-core machine; \`--quick\` takes a few):

\`\`\`sh
npm run bench                                                                  # PGlite
DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench              # PostgreSQL and graphile-worker
DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- --quick  # 1 node, smaller warm-up, no scale-out
# Instead of the phases: the growth section, one developer's reads and a drain, empty against 1,000,000 jobs seeded
DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- --growth [--growth-jobs 1000000]
# Two trees in one run: each phase (harness and server.mjs) on this checkout and on the other one, back to back,
# 3 times; the other checkout needs its own npm install, and its production build is made first when stale
git worktree add --detach /tmp/en-baseline <commit> && (cd /tmp/en-baseline && npm install && npm run build)
DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- --quick --baseline /tmp/en-baseline --rounds 3
\`\`\`

How it measures:

- Two servers under test. **As users run it**: \`server.mjs\` on the production build (\`scripts/build-if-stale.mjs\`
  builds it first when a source changed, as \`npm start\` does), with the product's default embedded nodes, on a
  fresh PGlite directory or throwaway PostgreSQL database; measured from its first job, with no warm-up, jobs
  submitted over HTTP with an API key through the public API and timed from the POST to EXECUTION_COMPLETED; then the
  same server runs \`--warmup-jobs\` unmeasured jobs and is measured again (warmed).
  **The harness**: the same route handlers served by \`tests/support/serve.ts\` in a child process, warmed up first
  (below), with 1 and 4 embedded nodes, where the submit-throughput, liveness, scale-out and database figures come from.
- Both: \`RATE_LIMIT_PER_MINUTE=0\` and \`ACCOUNT_RATE_PER_MINUTE=0\`, a new developer and API key with a huge credit
  balance, the product's default sweep interval. "N nodes" are N embedded node agents (\`EMBEDDED_NODES=N\`) in the
  server process, each with the product's default concurrency: the same agent code as a standalone node, on the
  in-process transport. The scale-out uses standalone node processes (\`scripts/node.ts\`) instead.
- Before any harness figure is taken, each harness server (and graphile-worker) runs \`--warmup-jobs\` jobs (5,000 by
  default, 1,000 with \`--quick\`) that are not measured: V8 optimises a hot path only after many calls, and a
  server in production has been running. Measured in 1,000-job rounds on one server, CPU per job falls for about
  5,000 jobs, to about half of the first round's, then holds (the load generator's too). The fresh \`server.mjs\`
  figures are the other end: a server that has just started. graphile-worker also runs once with no warm-up, first in
  the bench's process, so that each \`server.mjs\` row is compared with graphile-worker as warm as itself.
- Figures come from a 2-core machine where the load generator shares the CPU with the server; the CPU columns say
  how the cores were used, including by other processes that happened to run. Compare ratios within one run.
  The load generator submits with node:http on kept-alive connections, the leanest client Node has: its CPU is
  taken from the cores the server and PostgreSQL share, which an app's own machines would not take
  (\`--client fetch\` submits with fetch instead, which took 1.6–1.8× the client’s CPU per job in rounds of 300 jobs).
- Everything runs on a Node.js the product supports (package.json's engines: 22 or later; CI tests Node 24, the
  LTS). On an older Node the bench runs itself again on Node 24 from the npm registry, in the cache \`.ci/run\` uses
  (\`scripts/bench/supported-node.ts\`), so the load generator, graphile-worker and every server share one Node;
  \`--machine-node\` keeps the machine's. Each section's Machine line names it.
- \`--profile\` writes V8 CPU profiles of the server processes into \`.bench/\` (gitignored) and lists the top
  functions by self time; \`--private-postgres\` runs against a throwaway PostgreSQL cluster started for the run
  (\`initdb\`/\`pg_ctl\`, fsync on, \`shared_preload_libraries=pg_stat_statements\`) for statements per job and the
  top statements, without restarting the machine's shared server; that run writes its own section beside the
  shared server's.
- \`--webhook\` gives every server's developer a job.completed endpoint on a receiver of the bench's (127.0.0.1), so
  every completion is delivered and, since issue 42, signs its receipt on the way: each burst then ends with the
  later of its last completion and its last delivery, and its CPU per job includes the deliveries. That run
  writes its own section too (\`…-webhook\`).`;
}
