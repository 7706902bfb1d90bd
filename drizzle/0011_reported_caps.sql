ALTER TABLE "jobs" ADD COLUMN "reported_items" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "reported_bytes" bigint DEFAULT 0 NOT NULL;