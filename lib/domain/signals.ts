// Change signals: "job X changed" and "work is waiting". PostgreSQL NOTIFY is transactional (delivered on
// commit, to every server instance); the embedded database uses an in-process bus, and since PGlite runs
// one transaction at a time, a listener's read waits for the writing transaction to commit.
import { sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { readyDatabase } from "./ready";

export const jobChannel = "en_jobs";
export const workChannel = "en_work";

export async function signal(tx: Tx, channel: string, payload: string): Promise<void> {
  const database = await readyDatabase();
  if (database.driver === "postgres") {
    await tx.execute(sql`select pg_notify(${channel}, ${payload})`);
  } else {
    await database.notify(channel, payload);
  }
}

export async function onSignal(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> {
  return (await readyDatabase()).listen(channel, listener);
}
