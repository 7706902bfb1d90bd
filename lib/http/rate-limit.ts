// Rate limits (rate-limiter-flexible): counters in PostgreSQL, shared by every server instance, or in
// process memory on the embedded database (one process owns it). Each limit's verdict is kept for the
// request, and withApi sends the tightest as RateLimit-Limit/Remaining/Reset (429s add Retry-After).
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { rateLimits } from "@/lib/db/schema";
import { DomainError } from "@/lib/domain/errors";
import { readyDatabase } from "@/lib/domain/database";
import { processSingleton } from "@/lib/singleton";

interface Verdict {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

// One set per process and database: in memory, a key's count must be one whichever copy of this module serves
// the request (the direct routes, loaded at start-up, and the routes Next.js serves are bundled apart).
const limitersByDatabase = processSingleton(
  "rate-limiters",
  async () => new WeakMap<object, Map<string, RateLimiterAbstract>>(),
);
const verdicts = new WeakMap<Request, Verdict>();

async function limiterFor(name: string, perMinute: number): Promise<RateLimiterAbstract> {
  const id = `${name}:${perMinute}`;
  const database = await readyDatabase();
  const byDatabase = await limitersByDatabase.get();
  const limiters = byDatabase.get(database) ?? new Map<string, RateLimiterAbstract>();
  byDatabase.set(database, limiters);
  const existing = limiters.get(id);
  if (existing) return existing;
  const options = { keyPrefix: name, points: perMinute, duration: 60 };
  const limiter =
    database.driver === "postgres"
      ? new RateLimiterDrizzle({
          ...options,
          storeClient: database.db,
          schema: rateLimits,
          clearExpiredByTimeout: false,
        })
      : new RateLimiterMemory(options);
  limiters.set(id, limiter);
  return limiter;
}

function record(req: Request, verdict: Verdict): void {
  const current = verdicts.get(req);
  if (!current || verdict.remaining / verdict.limit < current.remaining / current.limit) verdicts.set(req, verdict);
}

/** Counts one request against `name`/`key` (`perMinute` a minute, 0 = off), or throws 429 RATE_LIMITED. */
export async function consumeRateLimit(req: Request, name: string, key: string, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  const limiter = await limiterFor(name, perMinute);
  let res: RateLimiterRes;
  let limited = false;
  try {
    res = await limiter.consume(key);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    res = error;
    limited = true;
  }
  const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  record(req, { limit: perMinute, remaining: limited ? 0 : res.remainingPoints, resetSeconds });
  if (limited)
    throw new DomainError("RATE_LIMITED", "Too many requests; slow down.", { limit: perMinute }, resetSeconds);
}

/** The RateLimit-* headers for this request's tightest limit, if any limit applied. */
export function rateLimitHeadersOf(req: Request): Record<string, string> {
  const verdict = verdicts.get(req);
  if (!verdict) return {};
  return {
    "ratelimit-limit": String(verdict.limit),
    "ratelimit-remaining": String(verdict.remaining),
    "ratelimit-reset": String(verdict.resetSeconds),
  };
}
