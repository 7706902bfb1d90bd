// Report parts for PostgreSQL runs: the scale-out table (1 → 2 server instances with standalone nodes)
// and what bounds jobs/s beyond one machine, argued from this run's own per-job figures.
import type { RunResults } from "./results";
import { notifiesPerJob, rowsPerJob } from "./report-work";
import type { ScaleOutResult } from "./scale-out";
import { ms, percent, perSecond, ratio, table } from "./stats";

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const appMsPerJob = (s: ScaleOutResult) => sum(s.processes.map((p) => p.msPerJob));
/** CPU of our processes in percent of one core over the window. */
const appPercent = (s: ScaleOutResult) => (appMsPerJob(s) * s.jobs) / (s.cpu.seconds * 10);
const statementsPerJob = (s: ScaleOutResult) => (s.statements ? s.statements.calls / s.jobs : Number.NaN);
const commitsPerJob = (s: ScaleOutResult) =>
  s.statements
    ? sum(s.statements.all.filter((q) => /^commit\b/i.test(q.query)).map((q) => q.calls)) / s.jobs
    : Number.NaN;
const fixed = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : "n/a");

export function scaleOutSection(r: RunResults): string {
  if (r.scaleOut.length === 0) return "";
  const rows = r.scaleOut.map((s) => [
    String(s.instances),
    `${s.nodes} × ${s.nodeConcurrency}`,
    `**${perSecond(s.jobsPerSecond)}**`,
    ms(s.spanMs),
    String(s.failed),
    s.processes.map((p) => `${p.name} ${ms(p.msPerJob)}`).join(", "),
    ms(appMsPerJob(s)),
    ms(s.postgresMsPerJob),
    fixed(statementsPerJob(s)),
    `${fixed(s.walBytesPerJob / 1024)} KiB`,
    `${s.connections.total} (${s.connections.listening} LISTEN)`,
    `${percent(appPercent(s))} / ${percent(s.cpu.postgres)} / ${percent(s.cpu.bench)} / ${percent(Math.max(0, s.cpu.other - appPercent(s)))}`,
  ]);
  const [one, two] = r.scaleOut;
  if (one && two) {
    rows.push([
      `**${two.instances} ÷ ${one.instances}**`,
      "",
      `**${ratio(two.jobsPerSecond, one.jobsPerSecond)}**`,
      "",
      "",
      "",
      ratio(appMsPerJob(two), appMsPerJob(one)),
      ratio(two.postgresMsPerJob, one.postgresMsPerJob),
      ratio(statementsPerJob(two), statementsPerJob(one)),
      ratio(two.walBytesPerJob, one.walBytesPerJob),
      ratio(two.connections.total, one.connections.total),
      "",
    ]);
  }
  return [
    `### Scale-out: 1 and ${two?.instances ?? 2} server instances on one PostgreSQL database, standalone nodes`,
    "",
    `The same server as above (\`tests/support/serve.ts\`, no embedded nodes), ${one?.instances ?? 1} then ${two?.instances ?? 2} instance(s) sharing ` +
      `one throwaway database; ${one?.nodes ?? 0} standalone node processes (\`scripts/node.ts\`, concurrency ${one?.nodeConcurrency ?? 0}), node i attached ` +
      `to instance i mod N over HTTP; ${one?.jobs ?? 0} token-count jobs from ${r.nodes[0]?.burst.submitters ?? 0} clients, submission i sent to ` +
      "instance i mod N. jobs/s as above (telemetry, first created → last completed). CPU per job: each process's CPU " +
      "time over the burst ÷ jobs. Connections: the most open to the database at once (250 ms samples). Everything " +
      "runs on the same 2 cores, so a second instance cannot add CPU: the ratio shows what a second instance costs " +
      "or saves per job here, and the CPU per job says what another machine would have to supply.",
    "",
    table(
      [
        "instances",
        "nodes × concurrency",
        "jobs/s",
        "first created → last completed",
        "failed",
        "app CPU per job, by process",
        "app CPU per job",
        "PostgreSQL CPU per job",
        "statements per job",
        "WAL per job",
        "peak connections",
        "CPU: app / PostgreSQL / load generator / other",
      ],
      rows,
    ),
  ].join("\n");
}

/** The statement that took the most time, and whether it waited on the balance row every submission of an account updates. */
function contentionLine(s: ScaleOutResult): string[] {
  const top = s.statements?.top[0];
  if (!s.statements || !top) return [];
  const share = top.totalMs / Math.max(1e-9, s.statements.totalMs);
  const typical =
    [...s.statements.all.map((q) => q.meanMs)].sort((a, b) => a - b)[Math.floor(s.statements.all.length / 2)] ??
    Number.NaN;
  const balanceRow = /update "accounts" set "credit_balance"/i.test(top.query) && top.meanMs > 10 * typical;
  return [
    `- **Contention.** The statement with the most execution time over the burst is \`${top.query.slice(0, 70)}…\` ` +
      `(${top.calls} calls, mean ${ms(top.meanMs)} against a median statement's ${ms(typical)}; ${fixed(share * 100, 0)} % of all statement time).` +
      (balanceRow
        ? " It waits on a row lock: every submission of an account updates that account's balance row, so one account's " +
          "submissions commit one after the other whatever the number of instances (the bench submits everything as one " +
          "account, its worst case). The lock is held until the debit's transaction commits, so the statements after the " +
          "debit in that transaction, and the commit's WAL flush, set one account's ceiling."
        : ""),
  ];
}

export function beyondOneMachineSection(r: RunResults): string {
  const s = r.scaleOut[r.scaleOut.length - 1];
  const one = r.scaleOut[0];
  if (!s || !one) return "";
  const rows = rowsPerJob(s.tableWrites, s.jobsInDatabase);
  const walKiB = s.walBytesPerJob / 1024;
  const pgMs = s.postgresMsPerJob;
  const target = 300;
  const notifies = notifiesPerJob(s.statements, s.jobs);
  const commits = commitsPerJob(s);
  const perInstance = s.connections.total / s.instances;
  const biggest = s.tableWrites
    .slice(0, 3)
    .map((w) => `${w.table} ${((w.inserted + w.updated + w.deleted) / s.jobsInDatabase).toFixed(1)}`);
  const measuredOr = (v: number, text: string) =>
    Number.isFinite(v) ? text : "n/a (needs `--private-postgres` for pg_stat_statements)";
  return [
    "### Beyond one machine: what bounds jobs/s, and what we would do",
    "",
    "Server instances share nothing but PostgreSQL and standalone nodes talk only to an instance over HTTP, so more " +
      "instances and nodes on more machines add app CPU linearly; what does not grow with them is the one database. " +
      `Figures from the ${s.instances}-instance run above:`,
    "",
    `- **PostgreSQL write rate per job.** Each job writes **${fixed(rows)} rows** (${biggest.join(", ")}; inserts, updates and ` +
      `deletes over the database's life ÷ its jobs), **${fixed(walKiB)} KiB of WAL** and ` +
      `${measuredOr(commits, `**${fixed(commits)} commits**`)}, and costs **${ms(pgMs)} of PostgreSQL CPU**. At the issue's ${target} jobs/s that is ` +
      `${fixed((target * rows) / 1000)}k rows/s, ${fixed((target * walKiB) / 1024)} MiB/s of WAL, ` +
      `${measuredOr(commits, `${fixed(target * commits, 0)} commits/s (each a WAL flush unless group commit merges them)`)} and ` +
      `${fixed((target * pgMs) / 1000, 2)} cores of PostgreSQL; one PostgreSQL core serves at most ~${fixed(1000 / pgMs, 0)} jobs/s at this cost. ` +
      "The database's CPU per job, not the instances', is the ceiling once app CPU is spread over machines.",
    `- **Connections.** An instance holds a pool of at most 10 connections (\`lib/db/postgres.ts\`) plus one LISTEN connection; ` +
      `measured at peak: ${one.connections.total} with ${one.instances} instance, ${s.connections.total} with ${s.instances} ` +
      `(${fixed(perInstance)} per instance, ${s.connections.listening} LISTEN). A standalone node holds **none**: it claims and reports over ` +
      "HTTP through its instance, so nodes scale without touching `max_connections` (100 by default); instances do: " +
      "~8 instances at full pools exhaust a default server, and far fewer than that many backends can run at once on its cores.",
    `- **LISTEN/NOTIFY fan-out.** ${measuredOr(notifies, `${fixed(notifies)} notifying statements per job`)}; every notification is ` +
      `delivered to every LISTEN connection of the database (${s.connections.listening} here, one per instance), so deliveries grow ` +
      "as jobs/s × instances, and committing a transaction that notified takes a cluster-wide lock on the notification queue, " +
      "which serializes those commits.",
    ...contentionLine(s),
    "",
    "What we would do there, in this order:",
    "",
    "1. **Batch telemetry**: a node's reports for a job (start, provider request, progress, completion) as multi-row " +
      "inserts in as few transactions as the contract's ordering allows; fewer rows and commits per job is the direct " +
      "lever on the first bound (telemetry is the largest share of the rows above).",
    "2. **Partition the job and telemetry tables** by time (range on `created_at`, daily or weekly): retention becomes " +
      "`DROP PARTITION` instead of `DELETE` + vacuum, hot indexes stay small, and the claim's partial index on queued jobs " +
      "stays tiny whatever the history.",
    "3. **PgBouncer in transaction mode** between instances and PostgreSQL, so instance pools stop counting against " +
      "`max_connections` and the server runs a few backends per core; LISTEN is session state, so each instance keeps " +
      "its one LISTEN connection **direct** to PostgreSQL (it already is a separate client), and named prepared statements " +
      "need PgBouncer ≥ 1.21 (`max_prepared_statements`).",
    "4. **Fewer notifications**: one NOTIFY per transaction and channel (PostgreSQL folds identical ones), and past a " +
      "handful of instances a fan-out outside the database for job events, keeping NOTIFY for the queue's wake-ups.",
    "5. Past one primary's write rate: **shard by account** (a job, its ledger entries and telemetry belong to one " +
      "account), each shard its own PostgreSQL with its own claim loop.",
  ].join("\n");
}
