// The database as the domain sees it: opened, migrated and with the catalog seeded, once per process.
import { sql } from "drizzle-orm";
import { getDatabase, type Database, type Db } from "@/lib/db/client";
import { services } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { catalog, inputJsonSchema } from "./catalog";

const readyKey = Symbol.for("execution-network.ready");
type GlobalWithReady = typeof globalThis & { [readyKey]?: Promise<Database> };

async function seedCatalog(db: Db): Promise<void> {
  const llmConfigured = Boolean(env().LLM_BASE_URL);
  const rows = catalog.map((entry, position) => ({
    id: entry.serviceId,
    name: entry.name,
    description: entry.description,
    creditCost: entry.creditCost,
    status: entry.isEnabled({ llmConfigured }) ? "active" : "disabled",
    inputSchema: inputJsonSchema(entry.serviceId),
    position,
  }));
  await db
    .insert(services)
    .values(rows)
    .onConflictDoUpdate({
      target: services.id,
      set: {
        name: sql`excluded.name`,
        description: sql`excluded.description`,
        creditCost: sql`excluded.credit_cost`,
        status: sql`excluded.status`,
        inputSchema: sql`excluded.input_schema`,
        position: sql`excluded.position`,
        updatedAt: sql`now()`,
      },
    });
}

/** Opens, migrates and seeds (once); a failure is retried on the next call. */
export function readyDatabase(): Promise<Database> {
  const g = globalThis as GlobalWithReady;
  if (!g[readyKey]) {
    const opening = getDatabase().then(async (database) => {
      await seedCatalog(database.db);
      return database;
    });
    g[readyKey] = opening;
    opening.catch(() => {
      if (g[readyKey] === opening) delete g[readyKey];
    });
  }
  return g[readyKey];
}

export async function db(): Promise<Db> {
  return (await readyDatabase()).db;
}

/** Forget the ready database (after closeDatabase in tests). */
export function resetReady(): void {
  delete (globalThis as GlobalWithReady)[readyKey];
}
