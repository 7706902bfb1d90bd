ALTER TABLE "jobs" ADD COLUMN "placement" text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "owner_account_id" uuid;--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "declared_service_ids" text[];--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "declared_concurrency" integer;--> statement-breakpoint
ALTER TABLE "nodes" ADD CONSTRAINT "nodes_owner_account_id_accounts_id_fk" FOREIGN KEY ("owner_account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "nodes_owner_idx" ON "nodes" USING btree ("owner_account_id","created_at");