// Webhook endpoints as developers manage them (CONTRACT §8): registration with a show-once secret, updates,
// rotation with a 24 h overlap, test events, deliveries and redelivery. Every query is scoped to the owner;
// another developer's endpoint or delivery is not found.
import { and, count, desc, eq, sql } from "drizzle-orm";
import { accounts, jobReceipts, jobs, webhookAttempts, webhookDeliveries, webhookEndpoints } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { limits } from "@/lib/limits";
import { requireProfile } from "./accounts";
import { DomainError, notFound } from "./errors";
import { isUuid } from "./ids";
import { keptCount } from "./list-counts";
import { descendingKeyset, exactTotal, keysetPage, listReads, timeParam, type CursorPageRequest } from "./pagination";
import { db } from "./database";
import { signal } from "./signals";
import { checkWebhookUrl } from "./webhook-address";
import type { WebhookEventType } from "@/lib/contract/vocabulary";
import { receiptJson } from "@/lib/contract/receipts";
import { eventBody, newEventId, receiptEventType, webhookChannel, withReceipt } from "./webhook-events";
import { encryptSecret, generateWebhookSecret } from "./webhook-signing";

/** How long the previous secret keeps signing after a rotation. */
export const rotationOverlapSeconds = 24 * 3600;

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function toWebhookEndpoint(row: EndpointRow) {
  return {
    endpointId: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    status: row.status as "enabled" | "disabled",
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toWebhookDelivery(row: DeliveryRow) {
  return {
    deliveryId: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType as WebhookEventType,
    jobId: row.jobId,
    status: row.status as "pending" | "succeeded" | "failed",
    attempts: row.attempts,
    lastResponseStatus: row.lastResponseStatus,
    lastError: row.lastError,
    lastLatencyMs: row.lastLatencyMs,
    nextAttemptAt: row.status === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const endpointNotFound = () => notFound("NOT_FOUND", "The webhook endpoint");
const ownEndpoint = (accountId: string, endpointId: string) =>
  and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.accountId, accountId));

async function findEndpoint(accountId: string, endpointId: string): Promise<EndpointRow> {
  if (!isUuid(endpointId)) throw endpointNotFound();
  const [row] = await (await db()).select().from(webhookEndpoints).where(ownEndpoint(accountId, endpointId));
  if (!row) throw endpointNotFound();
  return row;
}

export interface EndpointInput {
  url: string;
  events: WebhookEventType[];
  description?: string | null;
}

export async function createWebhookEndpoint(accountId: string, input: EndpointInput) {
  await requireProfile(accountId);
  const url = checkWebhookUrl(input.url, env().WEBHOOK_ALLOWED_HOSTS);
  const secret = generateWebhookSecret();
  const row = await (
    await db()
  ).transaction(async (tx) => {
    // The account row serialises concurrent registrations, so the limit holds under races.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    const [{ n }] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.accountId, accountId));
    if (n >= limits.webhookEndpointsPerDeveloper) {
      throw new DomainError(
        "LIMIT_REACHED",
        `A developer may have at most ${limits.webhookEndpointsPerDeveloper} webhook endpoints.`,
        {
          limit: limits.webhookEndpointsPerDeveloper,
        },
      );
    }
    const [inserted] = await tx
      .insert(webhookEndpoints)
      .values({
        accountId,
        url,
        events: input.events,
        description: input.description ?? null,
        secretCiphertext: encryptSecret(secret),
      })
      .returning();
    return inserted;
  });
  return { ...toWebhookEndpoint(row), secret };
}

export async function listWebhookEndpoints(accountId: string) {
  const rows = await (
    await db()
  )
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.accountId, accountId))
    .orderBy(desc(webhookEndpoints.createdAt));
  return rows.map(toWebhookEndpoint);
}

export async function getWebhookEndpoint(accountId: string, endpointId: string) {
  return toWebhookEndpoint(await findEndpoint(accountId, endpointId));
}

export interface EndpointPatch {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  status?: "enabled" | "disabled";
}

export async function updateWebhookEndpoint(accountId: string, endpointId: string, patch: EndpointPatch) {
  await findEndpoint(accountId, endpointId);
  const enabling = patch.status === "enabled";
  const [row] = await (
    await db()
  )
    .update(webhookEndpoints)
    .set({
      ...(patch.url !== undefined ? { url: checkWebhookUrl(patch.url, env().WEBHOOK_ALLOWED_HOSTS) } : {}),
      ...(patch.events !== undefined ? { events: patch.events } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.status !== undefined ? { status: patch.status, disabledReason: null } : {}),
      // Re-enabling starts the failure clock afresh.
      ...(enabling ? { failingSince: null } : {}),
      updatedAt: sql`now()`,
    })
    .where(ownEndpoint(accountId, endpointId))
    .returning();
  if (!row) throw endpointNotFound();
  // Deliveries held while the endpoint was disabled are due now.
  if (enabling) await signal(await db(), webhookChannel, "");
  return toWebhookEndpoint(row);
}

/** Deletes the endpoint; its deliveries, pending or not, go with it. */
export async function deleteWebhookEndpoint(accountId: string, endpointId: string): Promise<void> {
  if (!isUuid(endpointId)) throw endpointNotFound();
  const deleted = await (
    await db()
  )
    .delete(webhookEndpoints)
    .where(ownEndpoint(accountId, endpointId))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw endpointNotFound();
}

/** A new secret; the previous one keeps signing (a second signature) for 24 h. */
export async function rotateWebhookSecret(accountId: string, endpointId: string) {
  if (!isUuid(endpointId)) throw endpointNotFound();
  const secret = generateWebhookSecret();
  const [row] = await (
    await db()
  )
    .update(webhookEndpoints)
    .set({
      previousSecretCiphertext: sql`${webhookEndpoints.secretCiphertext}`,
      previousSecretExpiresAt: sql`now() + make_interval(secs => ${rotationOverlapSeconds})`,
      secretCiphertext: encryptSecret(secret),
      updatedAt: sql`now()`,
    })
    .where(ownEndpoint(accountId, endpointId))
    .returning();
  if (!row) throw endpointNotFound();
  return { ...toWebhookEndpoint(row), secret };
}

/** Queues a `webhook.test` event for the endpoint (whatever it subscribes to). */
export async function sendTestEvent(accountId: string, endpointId: string) {
  const endpoint = await findEndpoint(accountId, endpointId);
  const d = await db();
  const [row] = await d
    .insert(webhookDeliveries)
    .values({
      endpointId: endpoint.id,
      accountId,
      eventId: newEventId(),
      eventType: "webhook.test",
      body: eventBody("webhook.test", new Date(), {}),
    })
    .returning();
  await signal(d, webhookChannel, "");
  return toWebhookDelivery(row);
}

/**
 * Newest first, ties (one change's events) by id: one range of webhook_deliveries_endpoint_idx. The total is
 * kept per endpoint by a trigger that locks nothing (list-counts.ts): deliveries are written by job changes,
 * which lock no account row until their refund, so a counter row upserted there would be locked before the
 * account by a change and after it by a submission (a deadlock the random-work test met on PostgreSQL).
 */
const deliveriesKeyset = descendingKeyset<"deliveries", DeliveryRow>(
  "deliveries",
  sql`${webhookDeliveries.createdAt}, ${webhookDeliveries.id}`,
  (row) => [row.createdAt, row.id],
  (key) => sql`${timeParam(key.createdAt)}, ${key.id}::uuid`,
);

export async function listDeliveries(accountId: string, endpointId: string, request: CursorPageRequest<"deliveries">) {
  await findEndpoint(accountId, endpointId);
  const d = await db();
  const { read, keyAt } = listReads<"deliveries", DeliveryRow>(
    d,
    webhookDeliveries,
    and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.accountId, accountId)),
    { key: { createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id }, descending: true },
    deliveriesKeyset,
  );
  return keysetPage(
    deliveriesKeyset,
    request,
    read,
    keyAt,
    toWebhookDelivery,
    keptCount(d, endpointId, "deliveries").then(exactTotal),
  );
}

const deliveryNotFound = () => notFound("NOT_FOUND", "The delivery");

/**
 * One delivery as a developer debugs it (CONTRACT §8): what was sent (the headers of its latest attempt and
 * the exact body; before any attempt, the headers every attempt carries) and its newest attempts, oldest first.
 * A job.completed event's body is shown as the dispatcher sends it: with the job's stored receipt added
 * (withReceipt), once issued. Another endpoint's delivery, or another developer's, is not found.
 */
export async function getDelivery(accountId: string, endpointId: string, deliveryId: string) {
  if (!isUuid(endpointId) || !isUuid(deliveryId)) throw deliveryNotFound();
  const d = await db();
  const [[found], newestFirst] = await Promise.all([
    d
      .select({ delivery: webhookDeliveries, receipt: jobReceipts.body })
      .from(webhookDeliveries)
      .leftJoin(
        jobReceipts,
        and(eq(webhookDeliveries.eventType, receiptEventType), eq(jobReceipts.jobId, webhookDeliveries.jobId)),
      )
      .where(
        and(
          eq(webhookDeliveries.id, deliveryId),
          eq(webhookDeliveries.endpointId, endpointId),
          eq(webhookDeliveries.accountId, accountId),
        ),
      ),
    // Scoped by the delivery's owner too, so nothing of another developer's is read even for a moment.
    d
      .select({
        attemptedAt: webhookAttempts.createdAt,
        responseStatus: webhookAttempts.responseStatus,
        responseBody: webhookAttempts.responseBody,
        latencyMs: webhookAttempts.latencyMs,
        error: webhookAttempts.error,
        requestHeaders: webhookAttempts.requestHeaders,
      })
      .from(webhookAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(
        and(
          eq(webhookAttempts.deliveryId, deliveryId),
          eq(webhookDeliveries.endpointId, endpointId),
          eq(webhookDeliveries.accountId, accountId),
        ),
      )
      .orderBy(desc(webhookAttempts.attempt))
      .limit(limits.webhookAttemptsKept),
  ]);
  if (!found) throw deliveryNotFound();
  const { delivery: row, receipt } = found;
  const body = receipt === null ? row.body : (withReceipt(row.body, receiptJson(receipt)) ?? row.body);
  const { attempts: attemptCount, ...delivery } = toWebhookDelivery(row);
  const headers = newestFirst[0]?.requestHeaders ?? { "content-type": "application/json", "webhook-id": row.eventId };
  return {
    ...delivery,
    attemptCount,
    request: { headers, body },
    attempts: newestFirst.reverse().map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      responseStatus: a.responseStatus,
      responseBody: a.responseBody,
      latencyMs: a.latencyMs,
      error: a.error,
    })),
  };
}

/** One job's deliveries to all of the developer's endpoints, newest first (the job page). */
export async function listJobDeliveries(accountId: string, jobId: string) {
  if (!isUuid(jobId)) throw notFound("JOB_NOT_FOUND", "The job");
  const d = await db();
  const [owned] = await d
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.accountId, accountId)));
  if (!owned) throw notFound("JOB_NOT_FOUND", "The job");
  const rows = await d
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.jobId, jobId), eq(webhookDeliveries.accountId, accountId)))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limits.pageLimitMax);
  return rows.map(toWebhookDelivery);
}

/** Sends the same event (same webhook-id) again, as a fresh round of the retry schedule. */
export async function redeliver(accountId: string, endpointId: string, deliveryId: string) {
  if (!isUuid(endpointId) || !isUuid(deliveryId)) throw deliveryNotFound();
  const d = await db();
  const [row] = await d
    .update(webhookDeliveries)
    .set({
      status: "pending",
      nextAttemptAt: sql`now()`,
      claimId: null,
      cycleAttempts: 0,
      cycleStartedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.accountId, accountId),
      ),
    )
    .returning();
  if (!row) throw deliveryNotFound();
  await signal(d, webhookChannel, "");
  return toWebhookDelivery(row);
}
