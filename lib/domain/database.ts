// The database as the domain sees it: opened, migrated and with the catalog seeded, once per process.
import { sql } from "drizzle-orm";
import type { Database, Db } from "@/lib/db/database";
import { getDatabase } from "@/lib/db/open";
import { services } from "@/lib/db/schema";
import { llmConfigured } from "@/lib/env";
import { processSingleton } from "@/lib/singleton";
import { catalog, inputJsonSchema } from "./catalog";

async function seedCatalog(db: Db): Promise<void> {
  const config = { llmConfigured: llmConfigured() };
  const rows = catalog.map((entry, position) => ({
    id: entry.serviceId,
    name: entry.name,
    description: entry.description,
    creditCost: entry.creditCost,
    status: entry.isEnabled(config) ? ("active" as const) : ("disabled" as const),
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

const ready = processSingleton("ready", async () => {
  const database = await getDatabase();
  await seedCatalog(database.db);
  return database;
});

/** Opens, migrates and seeds (once); a failure is retried on the next call. */
export const readyDatabase = (): Promise<Database> => ready.get();

export async function db(): Promise<Db> {
  return (await readyDatabase()).db;
}

/** Forget the ready database (after closeDatabase in tests). */
export function resetReady(): void {
  ready.take();
}
