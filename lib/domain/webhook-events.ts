// The webhook vocabulary every writer of the outbox shares (the job engine, the low-balance alert, test
// events and redeliveries): the signal that wakes the dispatcher, event ids, the body's form, and which events
// a job's status change sends. A leaf: it imports nothing that writes, so any writer can import it.
import { randomUUID } from "node:crypto";
import type { JobStatus, WebhookEventType } from "@/lib/contract/vocabulary";

/** Signalled after outbox rows are written: the dispatcher (lib/network/webhook-dispatcher.ts) listens. */
export const webhookChannel = "en_webhooks";

export const newEventId = () => `evt_${randomUUID().replaceAll("-", "")}`;

/** The same id, made by the database inside a statement that writes deliveries (lib/engine/webhook-fanout.ts). */
export const newEventIdSql = `'evt_' || replace(gen_random_uuid()::text, '-', '')`;

/** The body a receiver gets, serialised once and stored: the exact bytes that are signed and sent. */
export function eventBody(type: WebhookEventType, timestamp: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: timestamp.toISOString(), data });
}

/** The webhook events a status change causes. */
export function eventTypesOf(status: JobStatus): WebhookEventType[] {
  if (status === "completed") return ["job.status_changed", "job.completed"];
  if (status === "failed") return ["job.status_changed", "job.failed"];
  return ["job.status_changed"];
}
