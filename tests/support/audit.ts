// The database audit every fault scenario, the fuzz suite and the load soak end with: it reads the tables
// directly (PostgreSQL or an embedded PGlite directory) and lists every broken invariant, so "nothing
// went wrong" is checked in the data rather than inferred from the HTTP answers.
import { finalStatuses } from "@/lib/engine/job-machine";

/** Anything with `query(text) → { rows }`: a pg Client/Pool or a PGlite instance. */
export interface Queryable {
  query(text: string): Promise<{ rows: unknown[] }>;
}

export interface AuditOptions {
  /** Jobs still running are a violation (default). Off for an audit taken while traffic is in flight. */
  requireFinal?: boolean;
}

export interface AuditReport {
  accounts: number;
  jobs: number;
  ledgerEntries: number;
  events: number;
  /** One line per broken invariant; empty when the data is consistent. */
  violations: string[];
}

const finalList = finalStatuses.map((s) => `'${s}'`).join(",");

/** Each check: a query returning the offending rows, and how to name one. */
const checks: { name: string; final?: boolean; sql: string }[] = [
  {
    name: "Σ ledger ≠ balance",
    sql: `select a.id, a.credit_balance, coalesce(sum(l.amount), 0) as ledger_total
            from accounts a left join credit_ledger l on l.account_id = a.id
           group by a.id having a.credit_balance <> coalesce(sum(l.amount), 0)`,
  },
  {
    name: "ledger balance_after is not the running total",
    sql: `select account_id, seq, balance_after, running from (
            select account_id, seq, balance_after, sum(amount) over (partition by account_id order by seq) as running
              from credit_ledger) t
           where balance_after <> running`,
  },
  {
    name: "a key's spend is not what its jobs were charged minus refunded (CONTRACT §11)",
    sql: `select k.id, k.spent_total, coalesce(sum(-l.amount), 0) as through_jobs
            from api_keys k left join jobs j on j.api_key_id = k.id left join credit_ledger l on l.job_id = j.id and l.type in ('charge', 'refund')
           group by k.id, k.spent_total having k.spent_total <> coalesce(sum(-l.amount), 0)`,
  },
  {
    name: "negative balance",
    sql: `select id, credit_balance from accounts where credit_balance < 0`,
  },
  {
    name: "job without exactly one charge of its cost",
    sql: `select j.id, count(l.id) as charges, coalesce(sum(l.amount), 0) as charged, j.credit_cost
            from jobs j left join credit_ledger l on l.job_id = j.id and l.type = 'charge'
           group by j.id, j.credit_cost having count(l.id) <> 1 or coalesce(sum(l.amount), 0) <> -j.credit_cost`,
  },
  {
    name: "refund that does not match the job's outcome (one refund of its cost when failed, none otherwise)",
    sql: `select j.id, j.status, count(l.id) as refunds, coalesce(sum(l.amount), 0) as refunded
            from jobs j left join credit_ledger l on l.job_id = j.id and l.type = 'refund'
           group by j.id, j.status, j.credit_cost
          having (j.status = 'failed' and j.credit_cost > 0 and (count(l.id) <> 1 or sum(l.amount) <> j.credit_cost))
              or (j.status <> 'failed' and count(l.id) > 0)`,
  },
  {
    name: "ledger entry for a job that does not exist or belongs to another account",
    sql: `select l.id, l.job_id from credit_ledger l left join jobs j on j.id = l.job_id
           where l.job_id is not null and (j.id is null or j.account_id <> l.account_id)`,
  },
  {
    // No foreign key holds them to their job (migration 0040): the statements that write a job write them.
    name: "event or log line of a job that does not exist",
    sql: `select 'event' as kind, e.job_id, e.sequence from job_events e
           where not exists (select 1 from jobs j where j.id = e.job_id)
          union all
          select 'log', l.job_id, l.sequence from job_logs l
           where not exists (select 1 from jobs j where j.id = l.job_id)`,
  },
  {
    name: "job not final",
    final: true,
    sql: `select id, status from jobs where status not in (${finalList})`,
  },
  {
    name: "telemetry sequence with a gap (not 1…event_seq)",
    sql: `select j.id, j.event_seq, count(e.id) as events, min(e.sequence) as first, max(e.sequence) as last
            from jobs j left join job_events e on e.job_id = j.id
           group by j.id, j.event_seq
          having count(e.id) <> j.event_seq or coalesce(max(e.sequence), 0) <> j.event_seq or coalesce(min(e.sequence), 1) <> 1`,
  },
  {
    name: "log sequence with a gap (not 1…log_seq)",
    sql: `select j.id, j.log_seq, count(g.sequence) as lines, max(g.sequence) as last
            from jobs j left join job_logs g on g.job_id = j.id
           group by j.id, j.log_seq
          having count(g.sequence) <> j.log_seq or coalesce(max(g.sequence), 0) <> j.log_seq or coalesce(min(g.sequence), 1) <> 1`,
  },
  {
    name: "completed job without exactly one EXECUTION_COMPLETED",
    sql: `select j.id, count(e.id) as completions from jobs j
            left join job_events e on e.job_id = j.id and e.type = 'EXECUTION_COMPLETED'
           where j.status = 'completed' group by j.id having count(e.id) <> 1`,
  },
  {
    name: "final job whose last event is not a final one",
    final: true,
    sql: `select j.id, j.status, e.type from jobs j join job_events e on e.job_id = j.id and e.sequence = j.event_seq
           where j.status in (${finalList})
             and e.type not in ('EXECUTION_COMPLETED', 'JOB_FAILED', 'ROUTING_FAILED', 'JOB_CANCELLED', 'EXECUTION_FAILED')`,
  },
  {
    name: "idempotency key pointing at a missing job or another account's job",
    sql: `select k.account_id, k.key, k.job_id from idempotency_keys k left join jobs j on j.id = k.job_id
           where j.id is null or j.account_id <> k.account_id`,
  },
];

const count = async (db: Queryable, table: string) =>
  Number(((await db.query(`select count(*)::int as n from ${table}`)).rows[0] as { n: number }).n);

export async function auditDatabase(db: Queryable, options: AuditOptions = {}): Promise<AuditReport> {
  const requireFinal = options.requireFinal ?? true;
  const violations: string[] = [];
  for (const check of checks) {
    if (check.final && !requireFinal) continue;
    const { rows } = await db.query(check.sql);
    for (const row of rows.slice(0, 20)) violations.push(`${check.name}: ${JSON.stringify(row)}`);
    if (rows.length > 20) violations.push(`${check.name}: … and ${rows.length - 20} more`);
  }
  return {
    accounts: await count(db, "accounts"),
    jobs: await count(db, "jobs"),
    ledgerEntries: await count(db, "credit_ledger"),
    events: await count(db, "job_events"),
    violations,
  };
}

/** One line for reports: "audit: clean (3 accounts, 40 jobs, …)" or the violations. */
export function describeAudit(report: AuditReport): string {
  const totals = `${report.accounts} accounts, ${report.jobs} jobs, ${report.ledgerEntries} ledger entries, ${report.events} telemetry events`;
  return report.violations.length === 0
    ? `clean (${totals})`
    : `${report.violations.length} violation(s) (${totals}):\n  ${report.violations.join("\n  ")}`;
}

/** Opens an embedded database directory (its owning server must have stopped) for an audit. */
export async function openEmbeddedForAudit(dataDir: string): Promise<Queryable & { close(): Promise<void> }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const path = await import("node:path");
  const client = new PGlite(path.join(dataDir, "pg"));
  await client.waitReady;
  return client;
}
