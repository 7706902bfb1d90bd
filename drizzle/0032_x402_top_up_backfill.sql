-- Top-ups a pay-per-call payment credited before 0031 (one row per chain, transaction and payer then) name their
-- payment, as 0031's rows do: otherwise they look plain, and a second payment of the same payer in the same
-- transaction, still settling across the upgrade, would see a plain row credited and credit nothing. A row is
-- the payment's when its credit is the payment's ("Pay per call: …" ledger entry) and the payment is settled by
-- the same payer, account and value, in that transaction (the settler's own, or one it replaced) or in the same
-- database transaction (its credit and its settled state are written together: a transaction someone else sent).
-- Only pairs that match one way each are set; a row the watcher credited first (no such entry) stays plain.
WITH "candidates" AS (
	SELECT "t"."id" AS "top_up_id", "p"."id" AS "payment_id"
	FROM "top_ups" "t"
	JOIN "x402_payments" "p" ON "p"."chain_id" = "t"."chain_id"
		AND lower("p"."from_address") = lower("t"."from_address")
		AND "p"."account_id" = "t"."account_id"
		AND "p"."value" = "t"."token_amount"
		AND "p"."status" = 'settled'
	WHERE "t"."x402_payment_id" IS NULL
		AND "t"."status" = 'credited'
		AND EXISTS (
			SELECT 1 FROM "credit_ledger" "l"
			WHERE "l"."top_up_id" = "t"."id" AND "l"."type" = 'topup' AND "l"."description" LIKE 'Pay per call:%'
		)
		AND (
			"t"."tx_hash" = lower("p"."settlement_tx_hash")
			OR "p"."replaced_tx_hashes" @> jsonb_build_array("t"."tx_hash")
			OR "p"."updated_at" = "t"."credited_at"
		)
		AND NOT EXISTS (SELECT 1 FROM "top_ups" "o" WHERE "o"."x402_payment_id" = "p"."id")
), "pairs" AS (
	SELECT "c"."top_up_id", "c"."payment_id" FROM "candidates" "c"
	WHERE (SELECT count(*) FROM "candidates" "c2" WHERE "c2"."top_up_id" = "c"."top_up_id") = 1
		AND (SELECT count(*) FROM "candidates" "c3" WHERE "c3"."payment_id" = "c"."payment_id") = 1
)
UPDATE "top_ups" SET "x402_payment_id" = "pairs"."payment_id" FROM "pairs" WHERE "top_ups"."id" = "pairs"."top_up_id";
