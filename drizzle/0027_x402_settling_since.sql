ALTER TABLE "x402_payments" ADD COLUMN "settling_since" timestamp (3) with time zone;--> statement-breakpoint
-- Rows settling before this migration: their last update is the best measure left.
UPDATE "x402_payments" SET "settling_since" = "updated_at" WHERE "status" = 'settling';
