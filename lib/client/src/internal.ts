// Small helpers of the client core: abortable waits, dates, ids. Not exported from the package.
import { ExecutionAbortError, ExecutionNetworkError } from "./errors.js";
import type { TimeInput } from "./types.js";

export function abortErrorOf(signal: AbortSignal): ExecutionAbortError {
  return new ExecutionAbortError({ cause: signal.reason });
}

/** Waits `ms`, or rejects with ExecutionAbortError the moment `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortErrorOf(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortErrorOf(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles with `promise`, or rejects with `signal.reason` as soon as `signal` fires: a `fetch` that
 * ignores its signal still cannot hold the caller up.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** A `Date`, ISO string or epoch milliseconds, as the ISO-8601 string the API expects. */
export function toIsoTime(value: TimeInput, name: string): string {
  const date =
    value instanceof Date
      ? value
      : typeof value === "string" && /^\d+$/.test(value)
        ? new Date(Number(value))
        : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new ExecutionNetworkError(
      `${name} must be a Date, an ISO-8601 string or epoch milliseconds; got ${String(value)}.`,
    );
  }
  return date.toISOString();
}

/** One path segment, never empty (an empty job id would silently address the list route). */
export function pathSegment(value: string, name: string): string {
  if (typeof value !== "string" || value.length === 0)
    throw new ExecutionNetworkError(`${name} must be a non-empty string.`);
  return encodeURIComponent(value);
}

export async function newIdempotencyKey(): Promise<string> {
  const webCrypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof webCrypto?.randomUUID === "function") return webCrypto.randomUUID();
  // Node 18 exposes Web Crypto as a global only behind a flag; the built-in module always has it.
  const { randomUUID } = await import("node:crypto");
  return randomUUID();
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
