// Token-bucket rate limiting per credential, in process memory. Limits themselves live in lib/limits.ts.
import { DomainError } from "@/lib/domain/errors";

interface Bucket {
  tokens: number;
  refilledAt: number;
}

const buckets = new Map<string, Bucket>();

/** Takes one token from `key`'s bucket of `perMinute` tokens, or throws 429 RATE_LIMITED with Retry-After. */
export function takeToken(key: string, perMinute: number, now = Date.now()): void {
  if (perMinute <= 0) return;
  const ratePerMs = perMinute / 60_000;
  const bucket = buckets.get(key) ?? { tokens: perMinute, refilledAt: now };
  bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.refilledAt) * ratePerMs);
  bucket.refilledAt = now;
  if (bucket.tokens < 1) {
    buckets.set(key, bucket);
    const waitSeconds = Math.ceil((1 - bucket.tokens) / ratePerMs / 1000);
    throw new DomainError("RATE_LIMITED", "Too many requests; slow down.", undefined, waitSeconds);
  }
  bucket.tokens -= 1;
  buckets.set(key, bucket);
  if (buckets.size > 50_000) buckets.clear(); // bounded memory under key churn
}
