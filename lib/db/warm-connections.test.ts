// The PostgreSQL pool: a job after a quiet spell finds warm connections (the pool closes those idle past pg's 10 s
// but keeps `warmConnections`, whose sessions have already planned the hot path's statements), and close() returns
// only once every connection has gone.
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/postgres";
import { openPostgres, warmConnections } from "./postgres";

const idleTimeoutMs = 10_000;

describe("the PostgreSQL pool", () => {
  // The pglite project runs this file; PostgreSQL is there whenever the suite found it (vitest.config.mts).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "keeps its warm connections past the idle timeout, and closes the others",
    async () => {
      const scratch = await createScratchDatabase();
      const database = await openPostgres(scratch.url);
      const admin = new pg.Client({ connectionString: scratch.url });
      try {
        await admin.connect();
        const connected = async () =>
          (
            await admin.query<{ n: number }>(
              "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
            )
          ).rows[0].n;
        // A burst that needs eight connections at once.
        await Promise.all(Array.from({ length: 8 }, () => database.db.execute(sql`select pg_sleep(0.1)`)));
        expect(await connected()).toBeGreaterThanOrEqual(8);
        await new Promise((resolve) => setTimeout(resolve, idleTimeoutMs + 1_500));
        expect(await connected()).toBe(warmConnections);
      } finally {
        await admin.end();
        await database.close();
        await scratch.drop();
      }
    },
    30_000,
  );

  // pg-pool's end() resolves once it has asked its connections to end, while their backends may still be exiting
  // (4 of 40 closes were still counted right after, before close() waited for them).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "has closed every connection when close() returns: a count right after finds none",
    async () => {
      const scratch = await createScratchDatabase();
      const admin = new pg.Client({ connectionString: scratch.url });
      try {
        await admin.connect();
        const stillConnected: number[] = [];
        for (let i = 0; i < 40; i++) {
          const database = await openPostgres(scratch.url);
          await database.db.execute(sql`select 1`);
          await database.close();
          const { rows } = await admin.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
          );
          if (rows[0].n > 0) stillConnected.push(i);
        }
        expect(stillConnected).toEqual([]);
      } finally {
        await admin.end();
        await scratch.drop();
      }
    },
    60_000,
  );
});
