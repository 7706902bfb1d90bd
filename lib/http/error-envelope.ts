// The contract's error envelope and the one code → HTTP status table (CONTRACT §1).
import type { ErrorCode } from "@/lib/domain/errors";
import { jsonResponse } from "./json-response";

export const statusOfCode: Record<ErrorCode, number> = {
  INVALID_REQUEST: 400,
  /** A webhook URL that may never be called (CONTRACT §8). */
  VALIDATION_ERROR: 400,
  INVALID_API_KEY: 401,
  UNAUTHENTICATED: 401,
  INVALID_NODE_TOKEN: 401,
  INSUFFICIENT_CREDITS: 402,
  /** The API key's own credit limit (CONTRACT §11); details say when it resets. */
  KEY_CREDIT_LIMIT: 402,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN_ORIGIN: 403,
  SERVICE_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  PROFILE_NOT_FOUND: 404,
  /** A developer's node (CONTRACT §12): absent, or another developer's. */
  NODE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  SERVICE_DISABLED: 409,
  PROFILE_EXISTS: 409,
  LIMIT_REACHED: 409,
  KEY_REVOKED: 409,
  /** Rotating the token of a revoked node. */
  NODE_REVOKED: 409,
  KEY_MANAGED: 409,
  JOB_FINAL: 409,
  /** A receipt asked for before the job completed (CONTRACT §13). */
  JOB_NOT_COMPLETED: 409,
  LEASE_LOST: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_SERVICE_INPUT: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
  /** Credit top-ups (CONTRACT §10). */
  PAYMENTS_DISABLED: 409,
  INVALID_PAYMENT: 422,
  PAYMENT_CLAIMED: 409,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string; details?: Record<string, unknown> };
}

export function errorResponse(
  code: ErrorCode,
  message: string,
  requestId: string,
  details?: Record<string, unknown>,
  retryAfterSeconds?: number,
): Response {
  const body: ErrorBody = { error: { code, message, requestId, ...(details ? { details } : {}) } };
  const headers = new Headers({ "x-request-id": requestId });
  if (retryAfterSeconds !== undefined) headers.set("retry-after", String(Math.max(1, Math.ceil(retryAfterSeconds))));
  return jsonResponse(body, statusOfCode[code], headers);
}
