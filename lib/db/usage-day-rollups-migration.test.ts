// A database made before migration 0033 keeps its usage history in the day rollups: the migration fills them
// from the hour rollups already stored (a UTC day is the sum of its 24 UTC hours, histograms bucket by bucket),
// as the writes keep them from then on (lib/domain/usage-rollups.ts).
import { PGlite } from "@electric-sql/pglite";
import { drizzle as pgliteDrizzle } from "drizzle-orm/pglite";
import { migrate as pgliteMigrate } from "drizzle-orm/pglite/migrator";
import { drizzle as postgresDrizzle } from "drizzle-orm/node-postgres";
import { migrate as postgresMigrate } from "drizzle-orm/node-postgres/migrator";
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsBefore } from "@/tests/support/migrations-before";
import { createScratchDatabase } from "@/tests/support/postgres";
import { migrationsFolder } from "./migrations";

/** A new database on one driver: migrate it to a folder, run statements, read rows, close it. */
interface Scratch {
  migrate(folder: string): Promise<void>;
  exec(statements: string): Promise<unknown>;
  rows(query: string): Promise<unknown[]>;
  close(): Promise<void>;
}

async function onPglite(): Promise<Scratch> {
  const client = new PGlite();
  return {
    migrate: (folder) => pgliteMigrate(pgliteDrizzle({ client }), { migrationsFolder: folder }),
    exec: (statements) => client.exec(statements),
    rows: async (query) => (await client.query(query)).rows,
    close: () => client.close(),
  };
}

async function onPostgres(): Promise<Scratch> {
  const scratch = await createScratchDatabase();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  return {
    migrate: (folder) => postgresMigrate(postgresDrizzle({ client }), { migrationsFolder: folder }),
    exec: (statements) => client.query(statements),
    rows: async (query) => (await client.query(query)).rows,
    close: async () => {
      await client.end();
      await scratch.drop();
    },
  };
}

// The pglite project runs this file; PostgreSQL is there whenever the suite found it (vitest.config.mts).
const drivers = [
  ["PGlite", onPglite],
  ...(process.env.TEST_DATABASE_URL ? [["PostgreSQL", onPostgres] as const] : []),
] as const;

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const account = "00000000-0000-4000-8000-000000000001";
const other = "00000000-0000-4000-8000-000000000002";
const key = "00000000-0000-4000-8000-0000000000c1";
const nokey = "00000000-0000-0000-0000-000000000000";

describe.each(drivers)("migration 0033, usage day rollups, on %s", (_name, open) => {
  it("sums the hour rollups stored before it per UTC day, service and key", async () => {
    const client = await open();
    const before = migrationsBefore("0033_usage_day_rollups");
    dirs.push(before);
    await client.migrate(before);
    // Hour rows as the writes left them: two hours of one day for a key and service (histograms sharing a bucket),
    // the last hour of that day and the first of the next for another service without a key (a refund only, no
    // durations), and another developer's hour on the same day.
    const hour = (
      who: string,
      at: string,
      service: string,
      apiKey: string,
      [jobs, completed, failed, charged, refunded, count, sum]: number[],
      durations: Record<string, number>,
    ) =>
      `('${who}', '${at}', '${service}', '${apiKey}', ${jobs}, ${completed}, ${failed}, ${charged}, ${refunded}, ${count}, ${sum}, '${JSON.stringify(durations)}')`;
    await client.exec(`
      insert into accounts (id, wallet_address) values ('${account}', '0xabc'), ('${other}', '0xdef');
      insert into usage_rollups (account_id, hour, service_id, api_key_id, jobs, completed, failed, credits_charged,
          credits_refunded, duration_count, duration_sum_ms, durations) values
        ${hour(account, "2026-03-01T08:00:00Z", "text-summarize", key, [3, 2, 1, 6, 2, 3, 900], { 100: 2, 120: 1 })},
        ${hour(account, "2026-03-01T17:00:00Z", "text-summarize", key, [2, 1, 0, 4, 0, 1, 40], { 76: 1 })},
        ${hour(account, "2026-03-01T18:00:00Z", "text-summarize", key, [1, 1, 0, 2, 0, 1, 300], { 100: 1 })},
        ${hour(account, "2026-03-01T23:00:00Z", "token-count", nokey, [1, 0, 1, 1, 0, 1, 5], { 33: 1 })},
        ${hour(account, "2026-03-02T00:00:00Z", "token-count", nokey, [0, 0, 0, 0, 1, 0, 0], {})},
        ${hour(other, "2026-03-01T08:00:00Z", "text-summarize", key, [1, 1, 0, 2, 0, 1, 10], { 48: 1 })};`);

    await client.migrate(migrationsFolder);

    const rows = await client.rows(`select account_id, to_char(day at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as day,
        service_id, api_key_id, jobs::int, completed::int, failed::int, credits_charged::int as charged,
        credits_refunded::int as refunded, duration_count::int, duration_sum_ms::int, durations
      from usage_day_rollups order by 1, 2, 3`);
    const row = (
      who: string,
      day: string,
      service: string,
      apiKey: string,
      [jobs, completed, failed, charged, refunded, count, sum]: number[],
      durations: Record<string, number>,
    ) => ({
      account_id: who,
      day: `${day} 00:00`,
      service_id: service,
      api_key_id: apiKey,
      jobs,
      completed,
      failed,
      charged,
      refunded,
      duration_count: count,
      duration_sum_ms: sum,
      durations,
    });
    expect(rows).toEqual([
      row(account, "2026-03-01", "text-summarize", key, [6, 4, 1, 12, 2, 5, 1240], { 76: 1, 100: 3, 120: 1 }),
      row(account, "2026-03-01", "token-count", nokey, [1, 0, 1, 1, 0, 1, 5], { 33: 1 }),
      row(account, "2026-03-02", "token-count", nokey, [0, 0, 0, 0, 1, 0, 0], {}),
      row(other, "2026-03-01", "text-summarize", key, [1, 1, 0, 2, 0, 1, 10], { 48: 1 }),
    ]);
    await client.close();
  });
});
