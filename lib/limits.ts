// Every size limit and rate limit of the product, in one place.
import { env } from "@/lib/env";

export const limits = {
  /** Default JSON body limit (CONTRACT §1). */
  defaultBodyBytes: 1024 * 1024,
  /** image-ocr accepts images up to 8 MiB; base64 inflates by 4/3, plus JSON framing. */
  ocrImageBytes: 8 * 1024 * 1024,
  get ocrBodyBytes() {
    return Math.ceil((this.ocrImageBytes * 4) / 3) + 64 * 1024;
  },
  textChars: 20_000,
  pageLimitMax: 100,
  pageLimitDefault: 20,
  idempotencyKeyMaxLength: 255,
  /** Requests per minute per API key (token bucket); 0 disables. */
  get apiKeyRequestsPerMinute() {
    return env().RATE_LIMIT_PER_MINUTE;
  },
  nodeClaimMaxWaitMs: 25_000,
  webhookEndpointsPerDeveloper: 10,
  /** The part of a receiver's answer kept with each attempt. */
  webhookResponseBytes: 1024,
  /** Attempts in flight to one endpoint per instance, so one slow receiver cannot hold back the others. */
  webhookInFlightPerEndpoint: 8,
} as const;
