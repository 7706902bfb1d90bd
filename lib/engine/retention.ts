// Retention (JOB_RETENTION_DAYS): the events and log lines of jobs that ended more than that many days ago are
// deleted, a small batch per statement, walking final jobs in the order they ended from a stored cursor
// (job_retention), so no batch scans what earlier ones pruned and no lock is held for long. Only final jobs are
// touched (completed_at is set when a job ends, and a final job never changes again); the job rows themselves,
// the credit ledger and the usage rollups are kept, so lists, usage and balances are as before.
import { sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { jobEvents, jobLogs, jobRetention, jobs } from "@/lib/db/schema";

export interface PrunedBatch {
  /** Final jobs whose rows this batch pruned (fewer than the batch size: nothing older is left). */
  jobs: number;
  events: number;
  logs: number;
}

/**
 * Prunes the next `batchSize` final jobs that ended before `days` days ago. An instance that finds the cursor
 * locked by another's batch prunes nothing this time.
 */
export async function pruneOldJobRows(d: Tx, days: number, batchSize = 500): Promise<PrunedBatch> {
  const result = (await d.execute(sql`
    with cursor as (
      select pruned_through, last_job_id from ${jobRetention} where id = 1 for update skip locked
    ),
    batch as (
      select j.id, j.completed_at from ${jobs} j, cursor c
      where j.completed_at is not null
        and (j.completed_at, j.id) > (c.pruned_through, c.last_job_id)
        and j.completed_at < now() - make_interval(days => ${days}::int)
        and j.status in ('completed', 'failed')
      order by j.completed_at, j.id
      limit ${batchSize}::int
    ),
    events as (delete from ${jobEvents} e using batch b where e.job_id = b.id returning 1),
    logs as (delete from ${jobLogs} l using batch b where l.job_id = b.id returning 1),
    moved as (
      update ${jobRetention} r set pruned_through = last.completed_at, last_job_id = last.id
      from (select completed_at, id from batch order by completed_at desc, id desc limit 1) last
      where r.id = 1
    )
    select (select count(*) from batch) as jobs, (select count(*) from events) as events,
      (select count(*) from logs) as logs`)) as unknown as { rows: Record<string, unknown>[] };
  const [row] = result.rows;
  return { jobs: Number(row.jobs), events: Number(row.events), logs: Number(row.logs) };
}

/**
 * Whether retention has pruned this job's events and log lines: a final job at or before the stored cursor (the
 * cursor walks final jobs in the order they ended, so every one at or before it was pruned). One primary-key read.
 */
export async function isJobPruned(d: Tx, job: { id: string; completedAt: Date | null }): Promise<boolean> {
  if (!job.completedAt) return false;
  const rows = await d
    .select({ id: jobRetention.id })
    .from(jobRetention)
    .where(
      sql`${jobRetention.id} = 1 and (${jobRetention.prunedThrough}, ${jobRetention.lastJobId}) >= (${job.completedAt.toISOString()}::timestamptz, ${job.id}::uuid)`,
    );
  return rows.length > 0;
}
