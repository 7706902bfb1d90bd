// The audit that ends every fault scenario, fuzz run and load soak: it must see each kind of damage.
import { readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { beforeEach, describe, expect, it } from "vitest";
import { auditDatabase } from "../support/audit";

let db: PGlite;
const account = "00000000-0000-4000-8000-000000000001";
const job = "00000000-0000-4000-8000-000000000002";

beforeEach(async () => {
  // The test run's migrated template (tests/support/global-setup.ts) when there is one: initdb is slow.
  const template = process.env.EMBEDDED_DB_TEMPLATE;
  db = template ? new PGlite({ loadDataDir: new Blob([readFileSync(template)]) }) : new PGlite();
  if (!template) await migrate(drizzle({ client: db }), { migrationsFolder: path.join(process.cwd(), "drizzle") });
  // A consistent little world: 100 granted, one completed job of cost 3 with two events and one log line.
  await db.exec(`
    insert into accounts (id, wallet_address, credit_balance) values ('${account}', '0xabc', 97);
    insert into services (id, name, description, credit_cost, status, input_schema) values ('token-count', 't', 'd', 3, 'active', '{}');
    insert into credit_ledger (account_id, type, amount, balance_after, description) values ('${account}', 'grant', 100, 100, 'g');
    insert into jobs (id, account_id, service_id, status, input, credit_cost, max_attempts, timeout_ms, event_seq, log_seq)
      values ('${job}', '${account}', 'token-count', 'completed', '{}', 3, 3, 1000, 2, 1);
    insert into credit_ledger (account_id, type, amount, balance_after, job_id, description) values ('${account}', 'charge', -3, 97, '${job}', 'c');
    insert into job_events (job_id, sequence, type, attempt) values ('${job}', 1, 'JOB_CREATED', 0), ('${job}', 2, 'EXECUTION_COMPLETED', 1);
    insert into job_logs (job_id, sequence, level, source, message) values ('${job}', 1, 'info', 'platform', 'done');
  `);
});

const violationsAfter = async (damage: string) => {
  await db.exec(damage);
  return (await auditDatabase(db)).violations.map((v) => v.split(":")[0]);
};

describe("database audit", () => {
  it("finds nothing wrong in consistent data", async () => {
    expect((await auditDatabase(db)).violations).toEqual([]);
  });

  it("finds a balance the ledger does not prove", async () => {
    expect(await violationsAfter(`update accounts set credit_balance = 98`)).toContain("Σ ledger ≠ balance");
  });

  it("finds a second charge for one job", async () => {
    await db.exec(`drop index credit_ledger_job_type_idx`);
    expect(
      await violationsAfter(
        `insert into credit_ledger (account_id, type, amount, balance_after, job_id, description) values ('${account}', 'charge', -3, 94, '${job}', 'x'); update accounts set credit_balance = 94`,
      ),
    ).toContain("job without exactly one charge of its cost");
  });

  it("finds a key whose spend its jobs' charges and refunds do not prove", async () => {
    const key = "00000000-0000-4000-8000-000000000003";
    const keyed = `insert into api_keys (id, account_id, name, scopes, prefix, secret_hash, spent_total) values ('${key}', '${account}', 'k', '{jobs:read}', 'abcdefgh', 'h', 3);
      update jobs set api_key_id = '${key}'`;
    expect(await violationsAfter(keyed)).toEqual([]);
    expect(await violationsAfter(`update api_keys set spent_total = 2`)).toContain(
      "a key's spend is not what its jobs were charged minus refunded (CONTRACT §11)",
    );
  });

  it("finds a job that never finished", async () => {
    expect(await violationsAfter(`update jobs set status = 'running'`)).toContain("job not final");
  });

  it("finds a gap in the telemetry sequence", async () => {
    expect(
      await violationsAfter(`update job_events set sequence = 3 where sequence = 2; update jobs set event_seq = 3`),
    ).toContain("telemetry sequence with a gap (not 1…event_seq)");
  });

  it("finds an event and a log line of a job that does not exist (no foreign key holds them)", async () => {
    const missing = "00000000-0000-4000-8000-000000000009";
    expect(
      await violationsAfter(
        `insert into job_events (job_id, sequence, type, attempt) values ('${missing}', 1, 'JOB_CREATED', 0);
         insert into job_logs (job_id, sequence, level, source, message) values ('${missing}', 1, 'info', 'platform', 'x')`,
      ),
    ).toContain("event or log line of a job that does not exist");
    const orphans = (await auditDatabase(db)).violations.filter((v) => v.startsWith("event or log line"));
    expect(orphans.map((v) => (JSON.parse(v.slice(v.indexOf(": ") + 2)) as { kind: string }).kind).sort()).toEqual([
      "event",
      "log",
    ]);
  });

  it("finds a refund on a completed job", async () => {
    expect(
      await violationsAfter(
        `insert into credit_ledger (account_id, type, amount, balance_after, job_id, description) values ('${account}', 'refund', 3, 100, '${job}', 'r'); update accounts set credit_balance = 100`,
      ),
    ).toContain("refund that does not match the job's outcome (one refund of its cost when failed, none otherwise)");
  });
});
