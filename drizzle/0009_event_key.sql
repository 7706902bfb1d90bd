-- An event's key becomes its job and its place in the job's sequence, taking over the unique index that already
-- held them (no rebuild). The random-UUID key goes; its column stays, as every event's eventId.
ALTER TABLE "job_events" DROP CONSTRAINT "job_events_pkey";--> statement-breakpoint
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_job_id_sequence_pk" PRIMARY KEY USING INDEX "job_events_job_seq_idx";
