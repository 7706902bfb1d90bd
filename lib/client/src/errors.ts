// Every error the client throws: one base class, one subclass per way a call can fail.
import type { ExecutionJob } from "./types.js";

/** Error codes the API documents. Unknown codes from a newer server still arrive, as plain strings. */
export type KnownErrorCode =
  | "INVALID_REQUEST"
  | "VALIDATION_ERROR"
  | "INVALID_API_KEY"
  | "UNAUTHENTICATED"
  | "INSUFFICIENT_CREDITS"
  | "KEY_CREDIT_LIMIT"
  | "INSUFFICIENT_SCOPE"
  | "FORBIDDEN_ORIGIN"
  | "SERVICE_NOT_FOUND"
  | "JOB_NOT_FOUND"
  | "KEY_NOT_FOUND"
  | "PROFILE_NOT_FOUND"
  | "NODE_NOT_FOUND"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "IDEMPOTENCY_CONFLICT"
  | "SERVICE_DISABLED"
  | "PROFILE_EXISTS"
  | "LIMIT_REACHED"
  | "KEY_REVOKED"
  | "NODE_REVOKED"
  | "KEY_MANAGED"
  | "JOB_FINAL"
  | "JOB_NOT_COMPLETED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "INVALID_SERVICE_INPUT"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR"
  | "UNAVAILABLE"
  | "PAYMENTS_DISABLED"
  | "INVALID_PAYMENT"
  | "PAYMENT_CLAIMED";

/**
 * `UNKNOWN_ERROR`: a non-2xx answer without the API's error envelope (e.g. from a proxy).
 * `INVALID_RESPONSE`: a 2xx answer whose body is not the JSON the operation expects.
 */
export type ClientErrorCode = "UNKNOWN_ERROR" | "INVALID_RESPONSE";

/** `(string & {})` keeps editor completion for the known codes while accepting any string. */
export type ExecutionErrorCode = KnownErrorCode | ClientErrorCode | (string & {});

/** Base class of every error this package throws. */
export class ExecutionNetworkError extends Error {
  // Literal names, not constructor names: those do not survive a consumer's minifier.
  override readonly name: string = "ExecutionNetworkError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface ExecutionApiErrorInit {
  status: number;
  code: ExecutionErrorCode;
  message: string;
  requestId: string | null;
  retryAfterSeconds: number | null;
  details: Record<string, unknown> | null;
  response: unknown;
  headers: Record<string, string>;
}

/** The server answered with an error status. */
export class ExecutionApiError extends ExecutionNetworkError {
  override readonly name: string = "ExecutionApiError";
  /** HTTP status of the (last) response. */
  readonly status: number;
  readonly code: ExecutionErrorCode;
  /** The server's `x-request-id`: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** From the `Retry-After` header (429, 503), in seconds. */
  readonly retryAfterSeconds: number | null;
  /** `error.details` of the envelope, e.g. `{ requiredScope }` or `{ issues: [{ path, message }] }`. */
  readonly details: Record<string, unknown> | null;
  /** The parsed response body (or its text when it is not JSON). */
  readonly response: unknown;
  /** Response headers, lower-cased names. */
  readonly headers: Record<string, string>;

  constructor(init: ExecutionApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.details = init.details;
    this.response = init.response;
    this.headers = init.headers;
  }
}

/** `error.details` of 402 KEY_CREDIT_LIMIT. */
export interface KeyCreditLimitDetails {
  creditLimit: number;
  /** What the key may still spend in the current period (less than the job's cost). */
  creditLimitRemaining: number;
  creditLimitReset: "daily" | "weekly" | "monthly" | null;
  /** ISO-8601 time the limit starts afresh; null for a limit without a reset. */
  resetsAt: string | null;
}

/**
 * 402 KEY_CREDIT_LIMIT: the API key's own credit limit does not cover the job (the account may still have
 * credits). Wait until `resetsAt`, or raise the key's limit in the dashboard. Not retried.
 */
export class KeyCreditLimitError extends ExecutionApiError {
  override readonly name: string = "KeyCreditLimitError";
  readonly creditLimit: number;
  readonly creditLimitRemaining: number;
  readonly creditLimitReset: KeyCreditLimitDetails["creditLimitReset"];
  readonly resetsAt: string | null;

  constructor(init: ExecutionApiErrorInit) {
    super(init);
    const details = (init.details ?? {}) as Partial<KeyCreditLimitDetails>;
    this.creditLimit = typeof details.creditLimit === "number" ? details.creditLimit : 0;
    this.creditLimitRemaining = typeof details.creditLimitRemaining === "number" ? details.creditLimitRemaining : 0;
    this.creditLimitReset = details.creditLimitReset ?? null;
    this.resetsAt = typeof details.resetsAt === "string" ? details.resetsAt : null;
  }
}

/** A request did not complete within `timeoutMs` (on its last attempt). */
export class ExecutionTimeoutError extends ExecutionNetworkError {
  override readonly name: string = "ExecutionTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`The request timed out after ${timeoutMs} ms.`);
  }
}

/** The caller's `AbortSignal` fired; nothing is retried after that. */
export class ExecutionAbortError extends ExecutionNetworkError {
  override readonly name: string = "ExecutionAbortError";
  constructor(options?: { cause?: unknown }) {
    super("The request was aborted.", options);
  }
}

/** The server could not be reached, or the connection broke (on the last attempt). */
export class ExecutionConnectionError extends ExecutionNetworkError {
  override readonly name: string = "ExecutionConnectionError";
  constructor(message = "Could not reach the Execution Network API.", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** `waitForJob` ran out of time before the job reached a final state. */
export class JobWaitTimeoutError extends ExecutionNetworkError {
  override readonly name: string = "JobWaitTimeoutError";
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
    /** The last state seen, or null when no poll succeeded. */
    readonly job: ExecutionJob | null,
    /** `cause`: the last transient error while polling, if any. */
    options?: { cause?: unknown },
  ) {
    super(`Job ${jobId} did not finish within ${timeoutMs} ms (last status: ${job?.status ?? "unknown"}).`, options);
  }
}

/** Narrows an unknown error to an API error, optionally of one code: `isApiError(e, "INSUFFICIENT_CREDITS")`. */
export function isApiError<C extends ExecutionErrorCode>(
  error: unknown,
  code?: C,
): error is ExecutionApiError & { code: C } {
  return error instanceof ExecutionApiError && (code === undefined || error.code === code);
}
