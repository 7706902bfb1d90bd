ALTER TABLE "accounts" ADD COLUMN "low_balance_threshold" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "credit_limit" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "credit_limit_reset" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spent_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spent_day" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "day_start" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spent_week" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "week_start" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spent_month" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "month_start" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "charged_at" timestamp (3) with time zone;--> statement-breakpoint
-- hand-written:
-- A limit is a positive number of credits (null: no limit).
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_credit_limit_positive" CHECK ("credit_limit" is null or "credit_limit" > 0);--> statement-breakpoint
-- Jobs charged before this migration: their charge time is their creation, and each key's spend so far is
-- what its jobs were charged minus what they were refunded, so usage and limits count them too.
UPDATE "jobs" SET "charged_at" = "created_at" WHERE "api_key_id" IS NOT NULL AND "credit_cost" > 0;--> statement-breakpoint
UPDATE "api_keys" k SET
  "spent_total" = s.total, "spent_day" = s.day, "day_start" = date_trunc('day', now(), 'UTC'),
  "spent_week" = s.week, "week_start" = date_trunc('week', now(), 'UTC'),
  "spent_month" = s.month, "month_start" = date_trunc('month', now(), 'UTC')
FROM (
  SELECT j.api_key_id,
    sum(j.credit_cost - coalesce(r.amount, 0)) AS total,
    coalesce(sum(j.credit_cost - coalesce(r.amount, 0)) FILTER (WHERE j.charged_at >= date_trunc('day', now(), 'UTC')), 0) AS day,
    coalesce(sum(j.credit_cost - coalesce(r.amount, 0)) FILTER (WHERE j.charged_at >= date_trunc('week', now(), 'UTC')), 0) AS week,
    coalesce(sum(j.credit_cost - coalesce(r.amount, 0)) FILTER (WHERE j.charged_at >= date_trunc('month', now(), 'UTC')), 0) AS month
  FROM "jobs" j LEFT JOIN "credit_ledger" r ON r.job_id = j.id AND r.type = 'refund'
  WHERE j.api_key_id IS NOT NULL AND j.credit_cost > 0
  GROUP BY j.api_key_id
) s
WHERE k.id = s.api_key_id;
