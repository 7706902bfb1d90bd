CREATE TABLE "dashboard_keys" (
	"api_key_id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"sealed_secret" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'standard' NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_keys" ADD CONSTRAINT "dashboard_keys_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_keys" ADD CONSTRAINT "dashboard_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_keys_live_idx" ON "dashboard_keys" USING btree ("account_id") WHERE sealed_secret is not null;