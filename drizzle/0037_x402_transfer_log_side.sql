ALTER TABLE "x402_settlers" ADD COLUMN "transfer_log_side" text;--> statement-breakpoint
ALTER TABLE "x402_settlers" ADD COLUMN "transfer_log_tx_hash" text;