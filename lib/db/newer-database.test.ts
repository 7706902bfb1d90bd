// Upgrades go forward with every instance of the old build stopped (lib/db/migrations.ts): a rollback that keeps
// the database finds the older build refusing it, on either driver, and on PostgreSQL a build that would migrate
// refuses while an older instance is still connected, instead of either running code on a schema it misreads.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createScratchDatabase, otherConnections } from "@/tests/support/postgres";
import { journalOf } from "./migrations";
import { openPglite } from "./pglite";
import { listenerApplicationName, openPostgres } from "./postgres";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const newest = Math.max(...journalOf().map((entry) => entry.when));
const newerMigration = `insert into drizzle.__drizzle_migrations (hash, created_at) values ('a-newer-build', ${newest + 1})`;

describe("a database migrated by a newer build", () => {
  // drizzle applies only migrations recorded later than a database's newest, so one that lands with an earlier
  // `when` (made in a branch before another landed) is skipped for good by every database that has the other.
  // The journal lists them as they landed, except 0022, which landed before 0021 and is listed by its number.
  it("each migration is recorded later than every one that landed before it, or databases that have those skip it", () => {
    const entries = journalOf().filter((entry) => entry.tag !== "0022_list_count_deltas");
    entries.forEach((entry, i) =>
      expect(entry.when, entry.tag).toBeGreaterThan(Math.max(0, ...entries.slice(0, i).map((e) => e.when))),
    );
  });

  it("is refused by an older build on the embedded database, which opens again once it is not", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "en-newer-"));
    dirs.push(dataDir);
    const { PGlite } = await import("@electric-sql/pglite");
    // A data directory as an up-to-date build leaves it, from the test run's migrated template (no initdb here).
    const template = process.env.EMBEDDED_DB_TEMPLATE;
    if (template)
      await (
        await PGlite.create(path.join(dataDir, "pg"), { loadDataDir: new Blob([readFileSync(template)]) })
      ).close();
    const first = await openPglite(dataDir);
    await first.close();

    const raw = new PGlite(path.join(dataDir, "pg"));
    await raw.exec(newerMigration);
    await raw.close();
    await expect(openPglite(dataDir)).rejects.toThrow(/migrated by a newer build[\s\S]*will not open it/);

    // The refusal kept nothing: once the newer migration is gone (the newer build never ran), it opens.
    const again = new PGlite(path.join(dataDir, "pg"));
    await again.exec("delete from drizzle.__drizzle_migrations where hash = 'a-newer-build'");
    await again.close();
    await (await openPglite(dataDir)).close();
  });

  // The pglite project runs this file; PostgreSQL is there whenever the suite found it (vitest.config.mts).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "is refused by an older build on PostgreSQL, and the refusal leaves no connection open",
    async () => {
      const scratch = await createScratchDatabase();
      const admin = new pg.Client({ connectionString: scratch.url });
      try {
        await (await openPostgres(scratch.url)).close();
        await admin.connect();
        await admin.query(newerMigration);
        // Several times: a connection still closing when the refusal returns is seen only now and then.
        for (let i = 0; i < 10; i++) {
          await expect(openPostgres(scratch.url)).rejects.toThrow(/migrated by a newer build[\s\S]*will not open it/);
          expect(await otherConnections(admin)).toBe(0);
        }
      } finally {
        await admin.end().catch(() => undefined);
        await scratch.drop();
      }
    },
  );

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "a build that would migrate PostgreSQL waits until no older instance is connected, then migrates",
    async () => {
      const scratch = await createScratchDatabase();
      const last = journalOf().reduce((a, b) => (b.when > a.when ? b : a));
      const admin = new pg.Client({ connectionString: scratch.url });
      const olderInstance = new pg.Client({
        connectionString: scratch.url,
        application_name: listenerApplicationName(4242),
      });
      try {
        await (await openPostgres(scratch.url)).close();
        await admin.connect();
        await olderInstance.connect();
        // The database as the build before the newest migration left it, with that build still running.
        await admin.query("delete from drizzle.__drizzle_migrations where created_at = $1", [last.when]);
        await expect(openPostgres(scratch.url)).rejects.toThrow(
          new RegExp(`1 instance\\(s\\) of an older build .*pid 4242.*would migrate it \\(${last.tag}\\)`),
        );

        // Once it stops, the new build migrates (here: finds the newest migration recorded again) and opens.
        await olderInstance.end();
        await admin.query("insert into drizzle.__drizzle_migrations (hash, created_at) values ('again', $1)", [
          last.when,
        ]);
        await (await openPostgres(scratch.url)).close();
      } finally {
        await olderInstance.end().catch(() => undefined);
        await admin.end().catch(() => undefined);
        await scratch.drop();
      }
    },
  );
});
