// The fuzz run's change audit: a row that changed is fine only when a successful request explains it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { beforeEach, describe, expect, it } from "vitest";
import { snapshot, unexplainedChanges } from "./change-audit";

let db: PGlite;
const account = "00000000-0000-4000-8000-000000000001";
const key = "00000000-0000-4000-8000-000000000003";
const job = "00000000-0000-4000-8000-000000000002";

beforeEach(async () => {
  const template = process.env.EMBEDDED_DB_TEMPLATE;
  db = template ? new PGlite({ loadDataDir: new Blob([readFileSync(template)]) }) : new PGlite();
  if (!template) await migrate(drizzle({ client: db }), { migrationsFolder: path.join(process.cwd(), "drizzle") });
  await db.exec(`
    insert into accounts (id, wallet_address, credit_balance, name) values ('${account}', '0xabc', 100, 'Ada');
    insert into services (id, name, description, credit_cost, status, input_schema) values ('token-count', 't', 'd', 3, 'active', '{}');
    insert into api_keys (id, account_id, name, scopes, prefix, secret_hash) values ('${key}', '${account}', 'k', '{jobs:read}', 'dev_x', 'h');
  `);
});

const submitJob = `
  insert into jobs (id, account_id, service_id, status, input, credit_cost, max_attempts, timeout_ms)
    values ('${job}', '${account}', 'token-count', 'queued', '{}', 3, 3, 1000);
  insert into credit_ledger (account_id, type, amount, balance_after, job_id, description) values ('${account}', 'charge', -3, 97, '${job}', 'c');`;

describe("change audit after fuzzing", () => {
  it("accepts a job and its charge that a successful request returned", async () => {
    const before = await snapshot(db);
    await db.exec(submitJob);
    expect(await unexplainedChanges(db, before, new Set([job]), false)).toEqual([]);
  });

  it("flags a job and a charge no successful request explains", async () => {
    const before = await snapshot(db);
    await db.exec(submitJob);
    expect(await unexplainedChanges(db, before, new Set(), false)).toHaveLength(2);
  });

  it("flags a revoked key and a changed profile no successful request touched", async () => {
    const before = await snapshot(db);
    await db.exec(`update api_keys set revoked_at = now(); update accounts set name = 'Mallory'`);
    expect(await unexplainedChanges(db, before, new Set(), false)).toHaveLength(2);
    expect(await unexplainedChanges(db, before, new Set([key]), true)).toEqual([]);
  });
});
