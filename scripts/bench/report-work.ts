// Report parts on where the work goes: the liveness probe beside the idle baseline, the servers' CPU
// profiles by function, and PostgreSQL's statements, rows and WAL per job.
import type { ProfileSummary } from "./profile";
import type { StatementReport, TableWrites } from "./pg-stats";
import type { LivenessSummary, NodesResults } from "./results";
import { ms, nodesLabel, ratio, table } from "./stats";

export function livenessSection(nodes: NodesResults[]): string {
  const rows: string[][] = [];
  for (const n of nodes) {
    const l = n.liveness;
    const row = (window: string, s: LivenessSummary, vsIdle: boolean) => [
      nodesLabel(n.nodes),
      window,
      String(s.count),
      ms(s.p50),
      ms(s.p99),
      ms(s.max),
      String(s.failed),
      vsIdle ? ratio(s.p99, l.idle.p99) : "",
    ];
    rows.push(row("idle server (baseline)", l.idle, false));
    rows.push(row(`during the burst (${n.burst.jobs} jobs)`, l.burst, true));
    rows.push(row("during one worst-case text-summarize", l.worstCase, true));
  }
  const worst = nodes.map((n) => {
    const j = n.liveness.worstCaseJob;
    return `${nodesLabel(n.nodes)}: ${j.ok ? "completed" : "**did not complete**"}, provider-reported ${ms(j.providerMs)}, created → completed ${ms(j.createdToCompletedMs)}`;
  });
  const aim = nodes.every((n) => n.liveness.burst.max < 100 && n.liveness.worstCase.max < 100);
  return [
    "### Liveness while nodes work (issue 11, defect 3)",
    "",
    "`GET /api/health/live` probed every ~50 ms (one request at a time; a slow answer delays the next probe) on the " +
      "server that runs the embedded nodes: first idle, then through the end-to-end burst below, then while one " +
      "worst-case `text-summarize` job runs (20,000 characters of 5,000 tiny sentences, which stalled the event loop " +
      "for seconds before the worker pool). The probes add ~20 requests/s to the burst's server CPU.",
    "",
    table(["nodes", "window", "probes", "p50", "p99", "max", "failed", "p99 ÷ idle p99"], rows),
    "",
    `Worst-case job: ${worst.join("; ")}. Aim (every probe under 100 ms while nodes work): ${aim ? "met" : "**not met**"}.`,
  ].join("\n");
}

const escapeCell = (s: string) => s.replace(/\|/g, "\\|").replace(/`/g, "'");

export function profileSection(title: string, profile: ProfileSummary | undefined): string {
  if (!profile) return "";
  const rows = profile.top.map((f) => [
    escapeCell(f.name),
    `\`${escapeCell(f.where)}\``,
    ms(f.selfMs),
    `${((f.selfMs / profile.busyMs) * 100).toFixed(1)} %`,
  ]);
  return [
    `#### CPU profile: ${title}`,
    "",
    `${profile.files.length} profile file(s) (each server process and its profiled threads), samples inside the end-to-end burst only ` +
      `(${ms(profile.windowMs)}): ${ms(profile.busyMs)} of non-idle samples. Top functions by self time (\`(program)\`: V8 and native code outside JS functions):`,
    "",
    table(["function", "where", "self time", "of busy"], rows),
  ].join("\n");
}

/** Rows inserted + updated + deleted per job, over the database's whole life. */
export function rowsPerJob(writes: TableWrites[], jobs: number): number {
  return writes.reduce((a, w) => a + w.inserted + w.updated + w.deleted, 0) / jobs;
}

/** Calls of statements that send a notification, per job. */
export function notifiesPerJob(statements: StatementReport | undefined, jobs: number): number {
  if (!statements) return Number.NaN;
  return statements.all.filter((s) => /pg_notify|^notify /i.test(s.query)).reduce((a, s) => a + s.calls, 0) / jobs;
}

export function databaseSection(
  title: string,
  work: { statements?: StatementReport; walBytesPerJob: number; tableWrites: TableWrites[]; jobsInDatabase: number },
  jobs: number,
): string {
  const parts = [`#### PostgreSQL's work: ${title}`, ""];
  const writes = work.tableWrites
    .slice(0, 8)
    .map(
      (w) =>
        `${w.table} ${((w.inserted + w.updated + w.deleted) / work.jobsInDatabase).toFixed(2)} (${w.inserted} ins, ${w.updated} upd, ${w.deleted} del)`,
    );
  parts.push(
    `Rows written per job (every table, the database's whole life ÷ its ${work.jobsInDatabase} jobs): **${rowsPerJob(work.tableWrites, work.jobsInDatabase).toFixed(1)}** — ${writes.join("; ")}. ` +
      `WAL per job over the burst: **${(work.walBytesPerJob / 1024).toFixed(1)} KiB** (the whole cluster's WAL ÷ the burst's jobs; on a shared server it includes whatever else ran).`,
  );
  const s = work.statements;
  if (!s) {
    parts.push("", "Statements: the server does not load pg_stat_statements (run with `--private-postgres` for them).");
    return parts.join("\n");
  }
  parts.push(
    "",
    `Statements over the burst (pg_stat_statements, this database only; top-level statements, BEGIN/COMMIT included; the bench's own ` +
      `job-list polling while it waits is included too): **${(s.calls / jobs).toFixed(1)} per job**, ${ms(s.totalMs / jobs)} of execution ` +
      `time per job (lock waits included); ${notifiesPerJob(s, jobs).toFixed(1)} notifying statements per job. Top statements by total time ` +
      "(nested: run inside another statement, e.g. a foreign-key check); plans: how many times the statement was " +
      "planned (a prepared statement whose generic plan is cached is planned no more) and the mean planning time:",
    "",
    table(
      ["statement", "calls", "per job", "total", "mean", "plans", "planning mean"],
      s.top.map((t) => [
        `${t.toplevel ? "" : "(nested) "}\`${escapeCell(t.query.length > 110 ? `${t.query.slice(0, 107)}…` : t.query)}\``,
        String(t.calls),
        (t.calls / jobs).toFixed(2),
        ms(t.totalMs),
        ms(t.meanMs),
        String(t.plans),
        t.plans > 0 ? ms(t.meanPlanMs) : "",
      ]),
    ),
  );
  return parts.join("\n");
}
