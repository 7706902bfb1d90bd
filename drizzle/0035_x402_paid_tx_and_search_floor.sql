ALTER TABLE "x402_payments" ADD COLUMN "paid_tx_hash" text;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "use_search_floor" bigint;