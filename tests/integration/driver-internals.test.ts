// What lib/db/driver-internals.ts takes from Drizzle's and PGlite's private APIs still exists and still
// behaves as their public paths do: an upgrade of either that changes them fails here, not in production.
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Tx } from "@/lib/db/database";
import { executeNamedInSession } from "@/lib/db/driver-internals";
import { getDatabase } from "@/lib/db/open";
import { db } from "@/lib/domain/database";
import { usePostgres } from "../support/postgres";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server?.close());

// A sample of the types the hot statements read and write: text, integers, jsonb, times, booleans, nulls.
const sample = (bind: (name: string) => unknown) => sql`
  select ${bind("id")}::text as id, ${bind("n")}::int as n, ${bind("big")}::bigint as big,
         ${bind("doc")}::jsonb as doc, ${bind("at")}::timestamptz as at, ${bind("flag")}::boolean as flag,
         ${bind("missing")}::text as missing, now() - now() as zero, series
  from generate_series(1, 3) as series`;
const values = {
  id: "job-1",
  n: 7,
  big: 9_007_199_254_740_993n.toString(),
  doc: JSON.stringify({ a: [1, "two", null] }),
  at: "2026-11-25T12:00:00.000Z",
  flag: true,
  missing: null,
};
const withPlaceholders = () => sample((name) => sql.placeholder(name));
const withValues = () => sample((name) => values[name as keyof typeof values]);
const compiled = new PgDialect().sqlToQuery(withPlaceholders());

const publicRows = async (tx: Tx) => ((await tx.execute(withValues())) as unknown as { rows: unknown[] }).rows;
const preparedNames = async (tx: Tx) =>
  (
    (await tx.execute(sql`select name from pg_prepared_statements`)) as unknown as { rows: { name: string }[] }
  ).rows.map((row) => row.name);

describe("drizzle's session, asked for a compiled query under a name", () => {
  it("returns the rows its public execute returns, on the database and in a transaction", async () => {
    const d: Db = await db();
    const expected = await publicRows(d);
    expect(expected).toHaveLength(3);
    expect(await executeNamedInSession(d, compiled, "internals_sample", values)).toEqual(expected);
    await d.transaction(async (tx) => {
      expect(await executeNamedInSession(tx, compiled, "internals_sample", values)).toEqual(expected);
    });
  });

  it.runIf(usePostgres())("prepares it under that name on PostgreSQL (parsed once per connection)", async () => {
    const database = await getDatabase();
    await database.db.transaction(async (tx) => {
      await executeNamedInSession(tx, compiled, "internals_named", values);
      expect(await preparedNames(tx)).toContain("internals_named");
    });
  });
});

describe.skipIf(usePostgres())("PGlite's wire protocol, driven for named prepared statements", () => {
  it("returns the rows drizzle's public execute returns, and keeps the statement prepared", async () => {
    const database = await getDatabase();
    const run = database.runPrepared;
    expect(run).toBeTypeOf("function");
    const expected = await publicRows(database.db);
    const params = compiled.params.map((param) => values[(param as { name: string }).name as keyof typeof values]);
    for (let i = 0; i < 2; i++) expect(await run?.("internals_pglite", compiled.sql, params)).toEqual(expected);
    expect(await preparedNames(database.db)).toContain("internals_pglite");
  });
});
