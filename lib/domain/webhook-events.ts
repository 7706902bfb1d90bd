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

/** The event whose body carries the job's receipt (CONTRACT §13), added before its first attempt. */
export const receiptEventType: WebhookEventType = "job.completed";

/**
 * The body with `data.receipt` (the receipt's stored JSON) added at the end of `data`, every other byte kept
 * (a job's input may hold numbers JSON.parse would round); null when it already carries one.
 */
export function withReceipt(body: string, receipt: string): string | null {
  const event = JSON.parse(body) as { data?: { receipt?: unknown } };
  if (event.data?.receipt !== undefined) return null;
  // `data` is the last member of the event and closes just before the event does: `…}}`.
  if (!body.endsWith("}}")) throw new Error("A job event's body does not end with its data.");
  return `${body.slice(0, -2)}, "receipt" : ${receipt}}}`;
}

/** The webhook events a status change causes. */
export function eventTypesOf(status: JobStatus): WebhookEventType[] {
  if (status === "completed") return ["job.status_changed", "job.completed"];
  if (status === "failed") return ["job.status_changed", "job.failed"];
  return ["job.status_changed"];
}
