CREATE INDEX "x402_payments_reserved_idx" ON "x402_payments" USING btree ("updated_at") WHERE "x402_payments"."status" = 'reserved';
