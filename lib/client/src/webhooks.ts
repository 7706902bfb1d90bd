// Verifying webhooks the Execution Network sends (Standard Webhooks): the signature is
// `v1,<base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the base64 part of
// the `whsec_` secret; several signatures are space-separated (the previous secret signs too for 24 h
// after a rotation). Only node:crypto, constant-time comparison, and a timestamp tolerance against replay.
import { createHmac, timingSafeEqual } from "node:crypto";
import { ExecutionNetworkError } from "./errors.js";
import type { ExecutionReceipt } from "./receipts.js";
import type { ExecutionJob, IsoTime, Pagination } from "./types.js";

export type WebhookEventType = "job.status_changed" | "job.completed" | "job.failed" | "webhook.test" | "credits.low";

export interface WebhookEvent {
  type: WebhookEventType;
  /** ISO-8601 time of the change. */
  timestamp: string;
  /**
   * `job` for job events (`{}` for webhook.test); `sequence` is the job's telemetry sequence at the change.
   * `credits.low`: `balance` after the charge that crossed `threshold` (the profile's lowBalanceThreshold).
   */
  data: { job?: ExecutionJob; sequence?: number; balance?: number; threshold?: number; receipt?: ExecutionReceipt };
}

/** One event's delivery to one endpoint (`client.webhooks.deliveries`). */
export interface WebhookDelivery {
  deliveryId: string;
  endpointId: string;
  /** The `webhook-id` header: the same on every attempt and redelivery. */
  eventId: string;
  eventType: WebhookEventType;
  jobId: string | null;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  lastResponseStatus: number | null;
  /** e.g. `BAD_STATUS`, `TIMEOUT`, `CONNECTION_FAILED: …`, `DESTINATION_FORBIDDEN` (failed at once, never retried). */
  lastError: string | null;
  lastLatencyMs: number | null;
  nextAttemptAt: IsoTime | null;
  createdAt: IsoTime;
  updatedAt: IsoTime;
}

export interface WebhookDeliveryPage {
  data: WebhookDelivery[];
  pagination: Pagination;
}

/** One attempt of a delivery and what the endpoint answered. */
export interface WebhookDeliveryAttempt {
  attemptedAt: IsoTime;
  /** null: no answer (see `error`). */
  responseStatus: number | null;
  /** The first 4 KB of the answer (a NUL byte as U+FFFD); null: no answer. */
  responseBody: string | null;
  latencyMs: number;
  /** As `lastError`; null for a 2xx answer. */
  error: string | null;
}

/** A delivery as you debug it: what was sent, and what the endpoint answered to each of its last 20 attempts. */
export interface WebhookDeliveryDetail extends Omit<WebhookDelivery, "attempts"> {
  /** Every attempt so far (`attempts` lists the last 20). */
  attemptCount: number;
  request: {
    /** content-type and the Standard Webhooks headers of the latest attempt (before the first: content-type and webhook-id). */
    headers: Record<string, string>;
    /** The exact bytes sent (and signed). */
    body: string;
  };
  /** Oldest first. */
  attempts: WebhookDeliveryAttempt[];
}

/** Any header container: Fetch `Headers`, Node's `IncomingHttpHeaders`, or a plain object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The current time (tests). */
  now?: Date;
}

export class WebhookVerificationError extends ExecutionNetworkError {
  override readonly name: string = "WebhookVerificationError";
}

const secretPrefix = "whsec_";

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

function keyOf(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, "base64");
  if (key.length === 0) throw new WebhookVerificationError("The webhook secret is empty or not base64.");
  return key;
}

/**
 * Checks a delivery's signature and timestamp and returns the parsed event; throws
 * WebhookVerificationError otherwise. Pass the raw body exactly as received (not re-serialised JSON), and
 * during a rotation both secrets.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature.");
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not Unix seconds.");
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError("webhook-timestamp is outside the tolerance.");

  const payload = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  const signed = `${id}.${timestamp}.${payload}`;
  const expected = (typeof secret === "string" ? [secret] : secret).map((s) =>
    createHmac("sha256", keyOf(s)).update(signed).digest(),
  );
  const matches = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",");
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return expected.some((e) => e.length === given.length && timingSafeEqual(e, given));
  });
  if (!matches) throw new WebhookVerificationError("No webhook-signature matches the secret.");
  try {
    return JSON.parse(payload) as WebhookEvent;
  } catch (cause) {
    throw new WebhookVerificationError("The webhook body is not JSON.", { cause });
  }
}
