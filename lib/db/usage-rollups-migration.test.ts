// A database made before migration 0017 keeps its usage history: the migration fills the usage rollups from the
// jobs and ledger entries already stored, by the rules the writes follow from then on (lib/domain/usage-rollups.ts).
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsBefore } from "@/tests/support/migrations-before";
import { migrationsFolder } from "./migrations";

/** The duration bucket of lib/domain/usage-rollups.ts (ratio 1.05), spelt out: the db layer imports no domain. */
const durationBucket = (ms: number) => 1 + Math.floor(Math.log(ms) / Math.log(1.05));

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const account = "00000000-0000-4000-8000-000000000001";
const key = "00000000-0000-4000-8000-0000000000c1";

describe("migration 0017, usage rollups", () => {
  it("counts the jobs and credits stored before it, per hour, service and key", async () => {
    const client = new PGlite();
    const d = drizzle({ client });
    const before = migrationsBefore("0017_usage_rollups");
    dirs.push(before);
    await migrate(d, { migrationsFolder: before });
    // Three jobs: two through a key in one hour (one completed in 1.5 s, one failed and refunded the next
    // hour), one without a key, still running, on the next day.
    await client.exec(`
      insert into accounts (id, wallet_address) values ('${account}', '0xabc');
      insert into services (id, name, description, credit_cost, status, input_schema)
        values ('token-count', 'Token count', 'Counts tokens', 1, 'active', '{}'),
               ('text-summarize', 'Summary', 'Summarises', 2, 'active', '{}') on conflict do nothing;
      insert into jobs (id, account_id, api_key_id, service_id, status, input, credit_cost, max_attempts, timeout_ms, created_at, completed_at) values
        ('00000000-0000-4000-8000-0000000000a1', '${account}', '${key}', 'text-summarize', 'completed', '{}', 2, 3, 1000, '2026-03-01T23:10:00Z', '2026-03-01T23:10:01.5Z'),
        ('00000000-0000-4000-8000-0000000000a2', '${account}', '${key}', 'text-summarize', 'failed', '{}', 2, 3, 1000, '2026-03-01T23:50:00Z', '2026-03-02T00:00:30Z'),
        ('00000000-0000-4000-8000-0000000000a3', '${account}', null, 'token-count', 'running', '{}', 1, 3, 1000, '2026-03-02T08:00:00Z', null);
      insert into credit_ledger (account_id, type, amount, balance_after, job_id, description, created_at) values
        ('${account}', 'grant', 100, 100, null, 'Starter credits', '2026-03-01T00:00:00Z'),
        ('${account}', 'charge', -2, 98, '00000000-0000-4000-8000-0000000000a1', 'job', '2026-03-01T23:10:00Z'),
        ('${account}', 'charge', -2, 96, '00000000-0000-4000-8000-0000000000a2', 'job', '2026-03-01T23:50:00Z'),
        ('${account}', 'refund', 2, 98, '00000000-0000-4000-8000-0000000000a2', 'Refund', '2026-03-02T00:00:30Z'),
        ('${account}', 'charge', -1, 97, '00000000-0000-4000-8000-0000000000a3', 'job', '2026-03-02T08:00:00Z');`);

    await migrate(d, { migrationsFolder });

    const { rows } = await client.query(`select to_char(hour at time zone 'UTC', 'YYYY-MM-DD HH24') as hour, service_id,
        api_key_id, jobs::int, completed::int, failed::int, credits_charged::int as charged, credits_refunded::int as refunded,
        duration_count::int, duration_sum_ms::int, durations from usage_rollups order by 1, 2`);
    const nokey = "00000000-0000-0000-0000-000000000000";
    expect(rows).toEqual([
      {
        hour: "2026-03-01 23",
        service_id: "text-summarize",
        api_key_id: key,
        jobs: 2,
        completed: 1,
        failed: 1,
        charged: 4,
        refunded: 0,
        duration_count: 2,
        duration_sum_ms: 1500 + 630_000,
        durations: { [durationBucket(1500)]: 1, [durationBucket(630_000)]: 1 },
      },
      {
        hour: "2026-03-02 00",
        service_id: "text-summarize",
        api_key_id: key,
        jobs: 0,
        completed: 0,
        failed: 0,
        charged: 0,
        refunded: 2,
        duration_count: 0,
        duration_sum_ms: 0,
        durations: {},
      },
      {
        hour: "2026-03-02 08",
        service_id: "token-count",
        api_key_id: nokey,
        jobs: 1,
        completed: 0,
        failed: 0,
        charged: 1,
        refunded: 0,
        duration_count: 0,
        duration_sum_ms: 0,
        durations: {},
      },
    ]);
    await client.close();
  });
});
