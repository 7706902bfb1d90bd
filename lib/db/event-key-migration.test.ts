// A database made before migration 0009 (events keyed by a random UUID) keeps every event's eventId when the
// key becomes (job_id, sequence): what a developer saw as an event's id before the upgrade is its id after.
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsBefore } from "@/tests/support/migrations-before";
import { migrationsFolder } from "./migrations";

const job = "00000000-0000-4000-8000-0000000000aa";
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("migration 0009, events keyed by their job and sequence", () => {
  it("keeps every stored event's eventId, and refuses a second event at a taken place", async () => {
    const client = new PGlite();
    const d = drizzle({ client });
    const before = migrationsBefore("0009_event_key");
    dirs.push(before);
    await migrate(d, { migrationsFolder: before });
    await client.exec(`
      insert into accounts (id, wallet_address) values ('00000000-0000-4000-8000-000000000001', '0xabc');
      insert into services (id, name, description, credit_cost, status, input_schema)
        values ('token-count', 'Token count', 'Counts tokens', 1, 'active', '{}') on conflict do nothing;
      insert into jobs (id, account_id, service_id, status, input, credit_cost, max_attempts, timeout_ms, event_seq)
        values ('${job}', '00000000-0000-4000-8000-000000000001', 'token-count', 'queued', '{}', 1, 3, 1000, 2);
      insert into job_events (job_id, sequence, type, attempt)
        values ('${job}', 1, 'JOB_CREATED', 0), ('${job}', 2, 'WORKFLOW_INITIALIZED', 0);`);
    const eventIds = async () => (await client.query(`select id from job_events order by sequence`)).rows;
    const stored = await eventIds();

    await migrate(d, { migrationsFolder });

    expect(await eventIds()).toEqual(stored);
    await expect(
      client.query(
        `insert into job_events (job_id, sequence, type, attempt) values ('${job}', 2, 'ROUTING_STARTED', 0)`,
      ),
    ).rejects.toThrow(/job_events_job_id_sequence_pk/);
    const fresh = await client.query<{ id: string }>(
      `insert into job_events (job_id, sequence, type, attempt) values ('${job}', 3, 'ROUTING_STARTED', 0) returning id`,
    );
    expect(fresh.rows[0].id).toMatch(/^[0-9a-f-]{36}$/);
    await client.close();
  });
});
