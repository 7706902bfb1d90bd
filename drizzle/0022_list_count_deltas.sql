CREATE TABLE "list_count_deltas" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "list_count_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"scope_id" uuid NOT NULL,
	"list" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "list_count_deltas_scope_idx" ON "list_count_deltas" USING btree ("scope_id","list");--> statement-breakpoint
-- Top-ups (per developer: their account is set by the insert, a claim, reconciliation or sign-in) and webhook
-- deliveries (per endpoint: written by submissions, job changes, low-balance alerts and test events) keep their
-- totals through these triggers, one statement-level trigger per table and event, each adding one delta row
-- per scope the statement changed (lib/domain/list-counts.ts folds them into list_counts).
CREATE FUNCTION "count_top_ups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_count_deltas (scope_id, list, n)
    SELECT account_id, 'top_ups', count(*) FROM added WHERE account_id IS NOT NULL GROUP BY account_id ORDER BY account_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO list_count_deltas (scope_id, list, n)
    SELECT account_id, 'top_ups', -count(*) FROM removed WHERE account_id IS NOT NULL GROUP BY account_id ORDER BY account_id;
  ELSE
    INSERT INTO list_count_deltas (scope_id, list, n)
    SELECT account_id, 'top_ups', sum(n) FROM (
      SELECT account_id, 1 AS n FROM added WHERE account_id IS NOT NULL
      UNION ALL SELECT account_id, -1 FROM removed WHERE account_id IS NOT NULL
    ) moved GROUP BY account_id HAVING sum(n) <> 0 ORDER BY account_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "top_ups_counted_insert" AFTER INSERT ON "top_ups" REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION "count_top_ups"();
--> statement-breakpoint
CREATE TRIGGER "top_ups_counted_update" AFTER UPDATE ON "top_ups" REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION "count_top_ups"();
--> statement-breakpoint
CREATE TRIGGER "top_ups_counted_delete" AFTER DELETE ON "top_ups" REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION "count_top_ups"();
--> statement-breakpoint
CREATE FUNCTION "count_webhook_deliveries"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_count_deltas (scope_id, list, n)
    SELECT endpoint_id, 'deliveries', count(*) FROM added GROUP BY endpoint_id ORDER BY endpoint_id;
  ELSE
    INSERT INTO list_count_deltas (scope_id, list, n)
    SELECT endpoint_id, 'deliveries', -count(*) FROM removed GROUP BY endpoint_id ORDER BY endpoint_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_counted_insert" AFTER INSERT ON "webhook_deliveries" REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION "count_webhook_deliveries"();
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_counted_delete" AFTER DELETE ON "webhook_deliveries" REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION "count_webhook_deliveries"();
--> statement-breakpoint
-- The kept totals start from one count of what exists; from here on the triggers move them.
INSERT INTO "list_counts" ("scope_id", "list", "count") SELECT "account_id", 'top_ups', count(*) FROM "top_ups" WHERE "account_id" IS NOT NULL GROUP BY "account_id";
--> statement-breakpoint
INSERT INTO "list_counts" ("scope_id", "list", "count") SELECT "endpoint_id", 'deliveries', count(*) FROM "webhook_deliveries" GROUP BY "endpoint_id";
