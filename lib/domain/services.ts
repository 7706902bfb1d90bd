// The marketplace: catalog rows as published, and lookup for execution.
import { asc, eq } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { services } from "@/lib/db/schema";
import { db } from "./database";
import { ownNodeCreditCost } from "./own-node-price";
import type { ExecutionService } from "@/lib/contract/schemas";

export type ServiceRow = typeof services.$inferSelect;

export function toExecutionService(row: ServiceRow): ExecutionService {
  return {
    serviceId: row.id,
    name: row.name,
    description: row.description,
    creditCost: row.creditCost,
    ownNodeCreditCost: ownNodeCreditCost(row.creditCost),
    status: row.status,
    inputSchema: row.inputSchema as Record<string, unknown>,
  };
}

export async function listServices(): Promise<ExecutionService[]> {
  const rows = await (await db()).select().from(services).orderBy(asc(services.position));
  return rows.map(toExecutionService);
}

export async function findService(tx: Tx, serviceId: string): Promise<ServiceRow | undefined> {
  const [row] = await tx.select().from(services).where(eq(services.id, serviceId));
  return row;
}
