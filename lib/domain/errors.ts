// Typed failures the domain raises. The HTTP layer maps each code to a status and the error envelope.
import type { z } from "zod";
import { sameClassInEveryBundle } from "@/lib/singleton";

export const errorCodes = [
  "INVALID_REQUEST",
  "VALIDATION_ERROR",
  "INVALID_API_KEY",
  "UNAUTHENTICATED",
  "INVALID_NODE_TOKEN",
  "INSUFFICIENT_CREDITS",
  "KEY_CREDIT_LIMIT",
  "INSUFFICIENT_SCOPE",
  "FORBIDDEN_ORIGIN",
  "SERVICE_NOT_FOUND",
  "JOB_NOT_FOUND",
  "KEY_NOT_FOUND",
  "PROFILE_NOT_FOUND",
  "NODE_NOT_FOUND",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "IDEMPOTENCY_CONFLICT",
  "SERVICE_DISABLED",
  "PROFILE_EXISTS",
  "LIMIT_REACHED",
  "KEY_REVOKED",
  "NODE_REVOKED",
  "KEY_MANAGED",
  "JOB_FINAL",
  "JOB_NOT_COMPLETED",
  "LEASE_LOST",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "INVALID_SERVICE_INPUT",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "UNAVAILABLE",
  "PAYMENTS_DISABLED",
  "INVALID_PAYMENT",
  "PAYMENT_CLAIMED",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Seconds a client should wait before retrying (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
sameClassInEveryBundle(DomainError, "DomainError");

export const notFound = (code: Extract<ErrorCode, `${string}NOT_FOUND`>, what: string) =>
  new DomainError(code, `${what} was not found.`);

/** A zod error's issues as the envelope's `details.issues`: dotted path and message. */
export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}
