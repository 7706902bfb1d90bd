// The places an account has for open job event streams, counted in the database so the cap holds across
// every server instance: a row per open stream, its lease renewed while the stream lives. A stream whose
// instance died without closing it stops counting once its lease lapses.
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { eventStreams } from "@/lib/db/schema";
import { db } from "./database";

const leaseEnd = (leaseMs: number) => sql`now() + make_interval(secs => ${leaseMs / 1000})`;

/**
 * Takes one of the account's `cap` places for `leaseMs`, or returns null when all are taken. Opens for one
 * account are serialized by a transaction-scoped advisory lock, so two instances cannot both take the last place.
 */
export async function takeStreamPlace(accountId: string, cap: number, leaseMs: number): Promise<string | null> {
  return (await db()).transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`event-streams:${accountId}`}, 0))`);
    await tx
      .delete(eventStreams)
      .where(and(eq(eventStreams.accountId, accountId), lte(eventStreams.leaseExpiresAt, sql`now()`)));
    const [{ open }] = await tx
      .select({ open: sql<number>`count(*)::int` })
      .from(eventStreams)
      .where(and(eq(eventStreams.accountId, accountId), gt(eventStreams.leaseExpiresAt, sql`now()`)));
    if (open >= cap) return null;
    const [row] = await tx
      .insert(eventStreams)
      .values({ accountId, leaseExpiresAt: leaseEnd(leaseMs) })
      .returning({ id: eventStreams.id });
    return row.id;
  });
}

/** A live stream keeps its place for another `leaseMs`. */
export async function renewStreamPlace(placeId: string, leaseMs: number): Promise<void> {
  await (
    await db()
  )
    .update(eventStreams)
    .set({ leaseExpiresAt: leaseEnd(leaseMs) })
    .where(eq(eventStreams.id, placeId));
}

export async function releaseStreamPlace(placeId: string): Promise<void> {
  await (await db()).delete(eventStreams).where(eq(eventStreams.id, placeId));
}
