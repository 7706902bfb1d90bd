// Change signals: "job X changed" and "work is waiting", sent within the writer's transaction
// (Database.notify: PostgreSQL NOTIFY delivers on commit to every instance; PGlite's in-process bus is safe
// because PGlite runs one transaction at a time, so a listener's read waits for the commit).
import type { Tx } from "@/lib/db/database";
import { readyDatabase } from "./database";

export const jobChannel = "en_jobs";
export const workChannel = "en_work";
/** "API key X was revoked or rotated": every instance drops it from its key cache (lib/domain/api-key-cache.ts). */
export const apiKeyChannel = "en_api_keys";
/** "Instance I has dropped key X": each instance's answer to apiKeyChannel, awaited by the one that changed the key. */
export const apiKeyHeardChannel = "en_api_keys_heard";

export async function signal(tx: Tx, channel: string, payload: string): Promise<void> {
  await (await readyDatabase()).notify(tx, channel, payload);
}

export async function onSignal(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> {
  return (await readyDatabase()).listen(channel, listener);
}

/**
 * Whether a statement can carry its own signals (`select pg_notify(…)` within it, delivered on commit):
 * PostgreSQL. PGlite's bus is in-process, so its signals are sent after the statement instead.
 */
export async function signalsInline(): Promise<boolean> {
  return (await readyDatabase()).driver === "postgres";
}
