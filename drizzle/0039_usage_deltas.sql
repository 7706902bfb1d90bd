CREATE TABLE "usage_deltas" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_deltas_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" uuid NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"service_id" text NOT NULL,
	"api_key_id" uuid NOT NULL,
	"jobs" integer NOT NULL,
	"completed" integer NOT NULL,
	"failed" integer NOT NULL,
	"charged" bigint NOT NULL,
	"refunded" bigint NOT NULL,
	"duration_ms" bigint
);
--> statement-breakpoint
CREATE INDEX "usage_deltas_account_at_idx" ON "usage_deltas" USING btree ("account_id","at");