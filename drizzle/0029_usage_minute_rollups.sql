CREATE TABLE "usage_minute_rollups" (
	"account_id" uuid NOT NULL,
	"minute" timestamp (3) with time zone NOT NULL,
	"service_id" text NOT NULL,
	"api_key_id" uuid NOT NULL,
	"jobs" bigint DEFAULT 0 NOT NULL,
	"completed" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"credits_charged" bigint DEFAULT 0 NOT NULL,
	"credits_refunded" bigint DEFAULT 0 NOT NULL,
	"duration_count" bigint DEFAULT 0 NOT NULL,
	"duration_sum_ms" bigint DEFAULT 0 NOT NULL,
	"durations" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "usage_minute_rollups_account_id_minute_service_id_api_key_id_pk" PRIMARY KEY("account_id","minute","service_id","api_key_id")
);
--> statement-breakpoint
ALTER TABLE "usage_minute_rollups" ADD CONSTRAINT "usage_minute_rollups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Backfill: the minute rollups of the jobs and ledger entries already stored, so a period that cuts hours counts
-- the history too (the same rules as lib/domain/usage-rollups.ts and 0017: a job in the minute it was created,
-- credits in the minute of their entry, durations in buckets of ratio 1.05).
INSERT INTO "usage_minute_rollups" ("account_id", "minute", "service_id", "api_key_id", "jobs", "completed", "failed", "duration_count", "duration_sum_ms", "durations")
SELECT "account_id", "minute", "service_id", "api_key_id", sum("n"), sum("completed"), sum("failed"),
  coalesce(sum("n") FILTER (WHERE "bucket" IS NOT NULL), 0), coalesce(sum("ms"), 0),
  coalesce(jsonb_object_agg("bucket"::text, "n") FILTER (WHERE "bucket" IS NOT NULL), '{}'::jsonb)
FROM (
  SELECT "account_id", date_trunc('minute', "created_at", 'UTC') AS "minute", "service_id",
    coalesce("api_key_id", '00000000-0000-0000-0000-000000000000'::uuid) AS "api_key_id",
    CASE WHEN "completed_at" IS NULL THEN NULL
      WHEN greatest(0, round(extract(epoch FROM ("completed_at" - "created_at")) * 1000)) < 1 THEN 0
      ELSE 1 + floor(ln(greatest(0, round(extract(epoch FROM ("completed_at" - "created_at")) * 1000))) / ln(1.05))::int END AS "bucket",
    count(*) AS "n",
    count(*) FILTER (WHERE "status" = 'completed') AS "completed",
    count(*) FILTER (WHERE "status" = 'failed') AS "failed",
    sum(greatest(0, round(extract(epoch FROM ("completed_at" - "created_at")) * 1000))::bigint) AS "ms"
  FROM "jobs"
  GROUP BY 1, 2, 3, 4, 5
) "b"
GROUP BY "account_id", "minute", "service_id", "api_key_id";
--> statement-breakpoint
INSERT INTO "usage_minute_rollups" AS "u" ("account_id", "minute", "service_id", "api_key_id", "credits_charged", "credits_refunded")
SELECT "l"."account_id", date_trunc('minute', "l"."created_at", 'UTC'), "j"."service_id",
  coalesce("j"."api_key_id", '00000000-0000-0000-0000-000000000000'::uuid),
  coalesce(-sum("l"."amount") FILTER (WHERE "l"."type" = 'charge'), 0),
  coalesce(sum("l"."amount") FILTER (WHERE "l"."type" = 'refund'), 0)
FROM "credit_ledger" "l" JOIN "jobs" "j" ON "j"."id" = "l"."job_id"
WHERE "l"."type" IN ('charge', 'refund')
GROUP BY 1, 2, 3, 4
ON CONFLICT ("account_id", "minute", "service_id", "api_key_id") DO UPDATE SET
  "credits_charged" = "u"."credits_charged" + excluded."credits_charged",
  "credits_refunded" = "u"."credits_refunded" + excluded."credits_refunded";
