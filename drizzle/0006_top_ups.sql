CREATE TABLE "payment_scans" (
	"chain_id" integer NOT NULL,
	"token_address" text NOT NULL,
	"treasury_address" text NOT NULL,
	"next_block" bigint NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_scans_chain_id_token_address_treasury_address_pk" PRIMARY KEY("chain_id","token_address","treasury_address")
);
--> statement-breakpoint
CREATE TABLE "top_ups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"account_id" uuid,
	"from_address" text NOT NULL,
	"token_amount" numeric(78, 0) DEFAULT '0' NOT NULL,
	"credits" bigint DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"confirmations" integer DEFAULT 0 NOT NULL,
	"required_confirmations" integer NOT NULL,
	"block_number" bigint,
	"block_hash" text,
	"failure_reason" text,
	"checked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"credited_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD COLUMN "top_up_id" uuid;--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_tx_idx" ON "top_ups" USING btree ("chain_id","tx_hash");--> statement-breakpoint
CREATE INDEX "top_ups_account_idx" ON "top_ups" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "top_ups_pending_idx" ON "top_ups" USING btree ("checked_at") WHERE status in ('submitted', 'confirming');--> statement-breakpoint
CREATE INDEX "top_ups_unattributed_idx" ON "top_ups" USING btree ("from_address") WHERE account_id is null;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_top_up_id_top_ups_id_fk" FOREIGN KEY ("top_up_id") REFERENCES "public"."top_ups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_top_up_idx" ON "credit_ledger" USING btree ("top_up_id") WHERE top_up_id is not null;