// Idempotent submission (Stripe-style): a key belongs to one developer and one logical request, identified
// by the SHA-256 of the canonical JSON (RFC 8785) of {serviceId, input}.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { and, eq, lt, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { idempotencyKeys } from "@/lib/db/schema";
import { DomainError } from "./errors";

export function requestFingerprint(serviceId: string, input: unknown, placement = "any"): string {
  // The default placement leaves the fingerprint as it was before placements existed (keys stored then still match).
  const request = placement === "any" ? { serviceId, input } : { serviceId, input, placement };
  return createHash("sha256")
    .update(canonicalize(request) ?? "")
    .digest("hex");
}

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** The stored response for this key, or undefined; 409 when the key was used for a different request. */
export async function findReplay(
  tx: Tx,
  accountId: string,
  key: string,
  fingerprint: string,
): Promise<StoredResponse | undefined> {
  const [row] = await tx
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
  if (!row) return undefined;
  if (row.fingerprint !== fingerprint) {
    throw new DomainError("IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used for a different request.", {
      idempotencyKey: key,
    });
  }
  return { status: row.responseStatus, body: row.responseBody };
}

/** Deletes keys older than the retention (at least 24 h). */
export async function purgeIdempotencyKeys(tx: Tx, retentionHours: number): Promise<number> {
  const deleted = await tx
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${retentionHours})`))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}

/** A duplicate-key violation, whichever driver raised it (drizzle wraps driver errors in `cause`). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
