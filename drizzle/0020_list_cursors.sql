CREATE TABLE "list_counts" (
	"scope_id" uuid NOT NULL,
	"list" text NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "list_counts_scope_id_list_pk" PRIMARY KEY("scope_id","list")
);
--> statement-breakpoint
DROP INDEX "jobs_account_created_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_endpoint_idx";--> statement-breakpoint
CREATE INDEX "jobs_account_created_id_idx" ON "jobs" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "jobs_account_service_created_idx" ON "jobs" USING btree ("account_id","service_id","created_at","id");--> statement-breakpoint
CREATE INDEX "jobs_account_failed_idx" ON "jobs" USING btree ("account_id","created_at","id") WHERE status = 'failed';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("endpoint_id","created_at","id");--> statement-breakpoint
-- The kept totals start from one count of what exists; from here on the writes move them (list-counts.ts).
INSERT INTO "list_counts" ("scope_id", "list", "count") SELECT "account_id", 'jobs', count(*) FROM "jobs" GROUP BY "account_id";--> statement-breakpoint
INSERT INTO "list_counts" ("scope_id", "list", "count") SELECT "account_id", 'credit_entries', count(*) FROM "credit_ledger" GROUP BY "account_id";
