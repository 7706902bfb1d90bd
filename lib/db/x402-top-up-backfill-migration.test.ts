// A database made before migration 0031 (one top-up per chain, transaction and payer) has its pay-per-call
// payments' top-ups named by 0032 (x402_payment_id), as 0031's own are: a row credited by a payment no longer looks
// plain, so another payment of the same payer in that transaction, settling across the upgrade, is credited too.
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsBefore } from "@/tests/support/migrations-before";
import { migrationsFolder } from "./migrations";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const account = "00000000-0000-4000-8000-000000000001";
const payer = "0x00000000000000000000000000000000000000Aa";
const id = (n: number) => `00000000-0000-4000-8000-0000000000${n.toString().padStart(2, "0")}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

describe("migration 0032, the top-ups pay-per-call payments credited before 0031", () => {
  it("names each payment's top-up; a top-up the watcher credited stays plain", async () => {
    const client = new PGlite();
    const d = drizzle({ client });
    const before = migrationsBefore("0031_x402_payment_top_ups");
    dirs.push(before);
    await migrate(d, { migrationsFolder: before });
    const payment = (n: number, settlementTx: string, replaced: string[], settledAt: string) => `
      insert into x402_payments (id, chain_id, token_address, from_address, nonce, status, service_id, fingerprint,
          value, settlement_tx_hash, replaced_tx_hashes, account_id, updated_at)
        values ('${id(n)}', 8453, '0xtoken', '${payer}', '${hash(n)}', 'settled', 'token-count', 'f', 10000,
          '${settlementTx}', '${JSON.stringify(replaced)}', '${account}', '${settledAt}');`;
    const topUp = (n: number, tx: string, creditedAt: string, description: string) => `
      insert into top_ups (id, chain_id, tx_hash, account_id, from_address, token_amount, credits, status,
          required_confirmations, credited_at)
        values ('${id(n)}', 8453, '${tx}', '${account}', '${payer}', 10000, 1, 'credited', 1, '${creditedAt}');
      insert into credit_ledger (account_id, type, amount, balance_after, top_up_id, description)
        values ('${account}', 'topup', 1, 1, '${id(n)}', '${description}');`;
    await client.exec(`
      insert into accounts (id, wallet_address) values ('${account}', '${payer}');
      ${payment(1, hash(0xa1), [], "2026-11-01T00:00:01Z")}
      ${topUp(11, hash(0xa1), "2026-11-01T00:00:01Z", `Pay per call: 0.01 USDC in ${hash(0xa1)}`)}
      ${payment(2, hash(0xb2), [hash(0xb1)], "2026-11-01T00:00:02Z")}
      ${topUp(12, hash(0xb1), "2026-11-01T00:00:02Z", `Pay per call: 0.01 USDC in ${hash(0xb1)}`)}
      ${payment(3, hash(0xc1), [], "2026-11-01T00:00:03Z")}
      ${topUp(13, hash(0xc9), "2026-11-01T00:00:03Z", `Pay per call: 0.01 USDC in ${hash(0xc9)}`)}
      ${payment(4, hash(0xd1), [], "2026-11-01T00:00:04Z")}
      ${topUp(14, hash(0xd1), "2026-11-01T00:00:05Z", `Top-up: 0.01 USDC in ${hash(0xd1)}`)}`);

    await migrate(d, { migrationsFolder });

    const named = await client.query<{ id: string; x402_payment_id: string | null }>(
      `select id, x402_payment_id from top_ups order by id`,
    );
    expect(named.rows).toEqual([
      // The settler's own transaction.
      { id: id(11), x402_payment_id: id(1) },
      // A transaction it replaced at its nonce.
      { id: id(12), x402_payment_id: id(2) },
      // A transaction someone else sent: credited in the database transaction that settled the payment.
      { id: id(13), x402_payment_id: id(3) },
      // The watcher credited the transaction first (its credit holds the payment): plain, as 0031 reads it.
      { id: id(14), x402_payment_id: null },
    ]);
    await client.close();
  });
});
