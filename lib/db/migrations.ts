// Where drizzle-kit's migrations live: each driver runs them as it opens the database, then refuses a database
// that a newer build has migrated.
import { readFileSync } from "node:fs";
import path from "node:path";

export const migrationsFolder = path.join(process.cwd(), "drizzle");

interface JournalEntry {
  tag: string;
  when: number;
}

/** The migrations this build ships, in the order drizzle applies them (drizzle records each one's `when`). */
export function journalOf(folder = migrationsFolder): JournalEntry[] {
  const journal = JSON.parse(readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: JournalEntry[];
  };
  return journal.entries;
}

/**
 * Why an older build must not open a database a newer one has migrated: drizzle's migrator then applies nothing
 * and the old code runs on a schema whose meaning moved on (after 0031 an old wallet watcher credits pay-per-call
 * payments a second time; after 0033 old writes never reach the day rollups that usage reads). A rollback
 * restores the database too, or runs the newer build.
 */
export class DatabaseNewerThanBuild extends Error {
  constructor(newestApplied: number, newestKnown: JournalEntry) {
    super(
      `This database was migrated by a newer build of Execution Network (a migration of ${new Date(newestApplied).toISOString()}; ` +
        `this build's newest is ${newestKnown.tag}, of ${new Date(newestKnown.when).toISOString()}). ` +
        "Running older code on it would misread its data, so this build will not open it: start the newer build, " +
        "or restore the database from before the upgrade.",
    );
    this.name = "DatabaseNewerThanBuild";
  }
}

/** A database's migration table as drizzle keeps it (schema `drizzle`), read through either driver. */
export const newestAppliedMigrationQuery = "select max(created_at)::text as newest from drizzle.__drizzle_migrations";
/** Whether that table exists yet (a new database has none until its first migration). */
export const migrationTableExistsQuery = "select to_regclass('drizzle.__drizzle_migrations') is not null as exists";

/** The migrations this build would apply to a database whose newest is `newestApplied` (null: none yet). */
export function pendingMigrations(newestApplied: string | null | undefined, folder = migrationsFolder): JournalEntry[] {
  return journalOf(folder).filter((entry) => newestApplied == null || entry.when > Number(newestApplied));
}

/**
 * Why a build that migrates waits for the older instances to stop: they keep running their code on the schema it
 * changes (an old wallet watcher would credit pay-per-call payments twice after 0031; old writes would miss the
 * day rollups after 0033). There is no rolling upgrade across a migration.
 */
export class OlderInstancesRunning extends Error {
  constructor(instances: string[], pending: JournalEntry[]) {
    super(
      `${instances.length} instance(s) of an older build are connected to this database (${instances.join(", ")}), ` +
        `and this build would migrate it (${pending.map((entry) => entry.tag).join(", ")}). Stop every older ` +
        "instance first, then start this build: there is no rolling upgrade across a migration.",
    );
    this.name = "OlderInstancesRunning";
  }
}

/** Throws DatabaseNewerThanBuild when the database holds a migration later than every one this build ships. */
export function refuseNewerDatabase(newestApplied: string | null | undefined, folder = migrationsFolder): void {
  if (newestApplied == null) return;
  const known = journalOf(folder).reduce((a, b) => (b.when > a.when ? b : a));
  if (Number(newestApplied) > known.when) throw new DatabaseNewerThanBuild(Number(newestApplied), known);
}
