CREATE TABLE "job_access_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "x402_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"chain_id" integer NOT NULL,
	"token_address" text NOT NULL,
	"from_address" text NOT NULL,
	"nonce" text NOT NULL,
	"status" text NOT NULL,
	"service_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"idempotency_key" text,
	"value" numeric(78, 0) NOT NULL,
	"settlement_tx_hash" text,
	"settler_nonce" bigint,
	"account_id" uuid,
	"job_id" uuid,
	"failure_reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "x402_settlers" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"next_nonce" bigint NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "x402_settlers_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
ALTER TABLE "x402_payments" ADD CONSTRAINT "x402_payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_access_tokens_job_idx" ON "job_access_tokens" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "x402_payments_authorization_idx" ON "x402_payments" USING btree ("chain_id","token_address","from_address","nonce");