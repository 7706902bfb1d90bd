// The embedded database: PGlite in DATA_DIR/pg (or in memory), migrated on open, owned by this process alone,
// so its notifications never leave the process.
import { withCommitEffects } from "./after-commit";
import { readFileSync } from "node:fs";
import { EventEmitter } from "node:events";
import path from "node:path";
import { env } from "@/lib/env";
import type { Database, Db } from "./database";
import { takeDataDir } from "./data-dir";
import { pglitePreparedStatements } from "./driver-internals";
import { migrationsFolder, newestAppliedMigrationQuery, refuseNewerDatabase } from "./migrations";
import * as schema from "./schema";

export async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const inMemory = dataDir.startsWith("memory://");
  const dataDirLock = inMemory ? undefined : takeDataDir(dataDir);
  const template = env().EMBEDDED_DB_TEMPLATE;
  let client: InstanceType<typeof PGlite> | undefined;
  try {
    client =
      inMemory && template
        ? new PGlite({ loadDataDir: new Blob([readFileSync(template)]) })
        : new PGlite(inMemory ? undefined : path.join(dataDir, "pg"));
    await client.waitReady;
    await migrate(drizzle({ client, schema }), { migrationsFolder });
    const { rows } = await client.query<{ newest: string | null }>(newestAppliedMigrationQuery);
    refuseNewerDatabase(rows[0]?.newest);
  } catch (error) {
    // A failed open must not keep the directory: the next attempt (or the next process) takes it again.
    await client?.close().catch(() => undefined);
    dataDirLock?.release();
    throw error;
  }
  const opened = client;
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  return {
    db: withCommitEffects(drizzle({ client: opened, schema }) as unknown as Db),
    driver: "pglite",
    runPrepared: await pglitePreparedStatements(opened),
    async listen(channel, listener) {
      bus.on(channel, listener);
      return async () => void bus.off(channel, listener);
    },
    async notify(_tx, channel, payload) {
      bus.emit(channel, payload);
    },
    async listeningInstances() {
      return 1;
    },
    async close() {
      await opened.close();
      dataDirLock?.release();
    },
  };
}
