CREATE TABLE "job_retention" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"pruned_through" timestamp (3) with time zone DEFAULT 'epoch' NOT NULL,
	"last_job_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL
);
--> statement-breakpoint
CREATE INDEX "jobs_completed_idx" ON "jobs" USING btree ("completed_at","id") WHERE completed_at is not null;
--> statement-breakpoint
INSERT INTO "job_retention" ("id") VALUES (1);
