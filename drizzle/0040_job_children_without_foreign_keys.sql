-- A job's events and log lines are written only by the statements that write the job, from its row, and jobs are
-- never deleted: the foreign keys checked that again for each event and line of every transition, in the
-- statements on the queue's hot path. The database audit (tests/support/audit.ts) watches for orphans.
ALTER TABLE "job_events" DROP CONSTRAINT "job_events_job_id_jobs_id_fk";
--> statement-breakpoint
ALTER TABLE "job_logs" DROP CONSTRAINT "job_logs_job_id_jobs_id_fk";
