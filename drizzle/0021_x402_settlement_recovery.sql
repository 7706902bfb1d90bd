ALTER TABLE "x402_payments" ADD COLUMN "input" jsonb;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "placement" text;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "settlement_raw_tx" text;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "replaced_tx_hashes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_payments_idempotency_idx" ON "x402_payments" USING btree ("from_address","idempotency_key") WHERE "x402_payments"."idempotency_key" is not null and "x402_payments"."status" in ('reserved', 'settling');--> statement-breakpoint
CREATE INDEX "x402_payments_settling_idx" ON "x402_payments" USING btree ("settler_nonce") WHERE "x402_payments"."status" = 'settling';