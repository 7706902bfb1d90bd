// The database as the domain sees it: opened, migrated and with the catalog's rows present, once per process.
import { sql } from "drizzle-orm";
import type { Database, Db } from "@/lib/db/database";
import { getDatabase } from "@/lib/db/open";
import { services } from "@/lib/db/schema";
import { llmConfigured } from "@/lib/env";
import { processSingleton } from "@/lib/singleton";
import { catalog, inputJsonSchema } from "./catalog";

function catalogRows() {
  const config = { llmConfigured: llmConfigured() };
  return catalog.map((entry, position) => ({
    id: entry.serviceId,
    name: entry.name,
    description: entry.description,
    creditCost: entry.creditCost,
    status: entry.isEnabled(config) ? ("active" as const) : ("disabled" as const),
    inputSchema: inputJsonSchema(entry.serviceId),
    position,
  }));
}

/**
 * Any process that opens the database (a server, an operator command) makes sure every service has a row,
 * and changes none: whether a service is enabled depends on a server's configuration (an LLM for
 * text-generate), which a command run from another shell does not have.
 */
async function ensureCatalog(db: Db): Promise<void> {
  await db.insert(services).values(catalogRows()).onConflictDoNothing({ target: services.id });
}

/** A server at start-up: the catalog as this server's code and configuration have it. */
export async function publishCatalog(): Promise<void> {
  const d = await db();
  await d
    .insert(services)
    .values(catalogRows())
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
  await ensureCatalog(database.db);
  return database;
});

/** Opens, migrates and adds missing catalog rows (once); a failure is retried on the next call. */
export const readyDatabase = (): Promise<Database> => ready.get();

export async function db(): Promise<Db> {
  return (await readyDatabase()).db;
}

/** Forget the ready database (after closeDatabase in tests). */
export function resetReady(): void {
  ready.take();
}
