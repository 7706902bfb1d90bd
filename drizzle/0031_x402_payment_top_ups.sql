DROP INDEX "top_ups_tx_payer_idx";--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "x402_payment_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_x402_payment_idx" ON "top_ups" USING btree ("x402_payment_id") WHERE x402_payment_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_tx_payer_idx" ON "top_ups" USING btree ("chain_id","tx_hash","from_address") WHERE x402_payment_id is null;