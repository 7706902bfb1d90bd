// The process's database: PGlite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set, opened and
// migrated on first use, one per process (lib/singleton.ts).
import { env, isBuildPhase } from "@/lib/env";
import { processSingleton } from "@/lib/singleton";
import type { Database } from "./database";

const database = processSingleton("database", async () => {
  // `next build` renders in worker processes that are then killed: a database opened there would be
  // migrated by a build, and an embedded one left locked by nobody.
  if (isBuildPhase())
    throw new Error("The database may not be opened during `next build`: a page or route ran at build time.");
  const { DATABASE_URL, DATA_DIR } = env();
  // Each driver is loaded only when chosen: a PostgreSQL deployment never loads PGlite.
  return DATABASE_URL
    ? (await import("./postgres")).openPostgres(DATABASE_URL)
    : (await import("./pglite")).openPglite(DATA_DIR);
});

/** The process's database, opened and migrated on first use. A failed open is retried on the next call. */
export const getDatabase = (): Promise<Database> => database.get();

/** Closes the process's database (tests, graceful shutdown). */
export async function closeDatabase(): Promise<void> {
  const current = database.take();
  if (current) await (await current).close();
}
