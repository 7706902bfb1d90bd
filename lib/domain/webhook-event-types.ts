// The webhook event types of CONTRACT §8 (a vocabulary module: no imports, safe for any bundle).
export const webhookEventTypes = ["job.status_changed", "job.completed", "job.failed", "webhook.test"] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
