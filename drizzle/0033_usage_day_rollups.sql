CREATE TABLE "usage_day_rollups" (
	"account_id" uuid NOT NULL,
	"day" timestamp (3) with time zone NOT NULL,
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
	CONSTRAINT "usage_day_rollups_account_id_day_service_id_api_key_id_pk" PRIMARY KEY("account_id","day","service_id","api_key_id")
);
--> statement-breakpoint
ALTER TABLE "usage_day_rollups" ADD CONSTRAINT "usage_day_rollups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Backfill: the day rollups are the sums of the hour rollups already stored (a UTC day is 24 whole UTC hours, and
-- every count of an hour row is one of its day's), histograms summed bucket by bucket.
INSERT INTO "usage_day_rollups" ("account_id", "day", "service_id", "api_key_id", "jobs", "completed", "failed", "credits_charged", "credits_refunded", "duration_count", "duration_sum_ms", "durations")
SELECT "c"."account_id", "c"."day", "c"."service_id", "c"."api_key_id", "c"."jobs", "c"."completed", "c"."failed",
  "c"."credits_charged", "c"."credits_refunded", "c"."duration_count", "c"."duration_sum_ms",
  coalesce("h"."durations", '{}'::jsonb)
FROM (
  SELECT "account_id", date_trunc('day', "hour", 'UTC') AS "day", "service_id", "api_key_id", sum("jobs") AS "jobs",
    sum("completed") AS "completed", sum("failed") AS "failed", sum("credits_charged") AS "credits_charged",
    sum("credits_refunded") AS "credits_refunded", sum("duration_count") AS "duration_count",
    sum("duration_sum_ms") AS "duration_sum_ms"
  FROM "usage_rollups"
  GROUP BY 1, 2, 3, 4
) "c" LEFT JOIN (
  SELECT "account_id", "day", "service_id", "api_key_id", jsonb_object_agg("bucket", "n") AS "durations"
  FROM (
    SELECT "r"."account_id", date_trunc('day', "r"."hour", 'UTC') AS "day", "r"."service_id", "r"."api_key_id",
      "e"."key" AS "bucket", sum("e"."value"::bigint) AS "n"
    FROM "usage_rollups" "r", jsonb_each_text("r"."durations") "e"
    GROUP BY 1, 2, 3, 4, 5
  ) "b"
  WHERE "n" > 0
  GROUP BY 1, 2, 3, 4
) "h" USING ("account_id", "day", "service_id", "api_key_id");
