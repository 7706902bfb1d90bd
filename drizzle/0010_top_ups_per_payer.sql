DROP INDEX "top_ups_tx_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "top_ups_tx_payer_idx" ON "top_ups" USING btree ("chain_id","tx_hash","from_address");