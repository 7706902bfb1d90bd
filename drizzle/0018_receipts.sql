CREATE TABLE "job_receipts" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"body" text NOT NULL,
	"signer" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receipt_signers" (
	"address" text PRIMARY KEY NOT NULL,
	"sealed_key" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "job_receipts" ADD CONSTRAINT "job_receipts_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_signers_current_idx" ON "receipt_signers" USING btree ((true)) WHERE retired_at is null;