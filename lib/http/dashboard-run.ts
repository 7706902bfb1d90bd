// The dashboard's Run: the browser never holds an API key, so the server submits through the execution
// API (EXECUTION_API_URL) with the developer's dashboard key, using our own client library.
import {
  ExecutionApiError,
  ExecutionClient,
  isApiError,
  type ExecutionJob,
  type Placement,
} from "@execution-network/client";
import { dashboardKeyFor } from "@/lib/domain/dashboard-keys";
import { DomainError, errorCodes, type ErrorCode } from "@/lib/domain/errors";
import { executionApiUrl } from "@/lib/env";
import type { Logger } from "@/lib/log";
import { idempotencyKeyOf } from "./execute";

export interface DashboardRun {
  accountId: string;
  serviceId: string;
  input: Record<string, unknown>;
  placement?: Placement;
  idempotencyKey: string;
  log: Logger;
}

/** The dashboard always sends one: a double click or a retried request must land on one job. */
export function requiredIdempotencyKey(req: Request): string {
  const key = idempotencyKeyOf(req);
  if (!key) throw new DomainError("INVALID_REQUEST", "Send an Idempotency-Key header with each Run.");
  return key;
}

const isErrorCode = (code: string): code is ErrorCode => (errorCodes as readonly string[]).includes(code);

/** What the API answered, in our own envelope (422 issues, 402, 409 SERVICE_DISABLED pass through). */
function toDomainError(error: unknown, log: Logger): DomainError {
  if (error instanceof ExecutionApiError) {
    // A key problem on the second try is ours, not the developer's.
    const ours = error.code === "INVALID_API_KEY" || error.code === "INSUFFICIENT_SCOPE" || !isErrorCode(error.code);
    if (!ours)
      return new DomainError(
        error.code as ErrorCode,
        error.message,
        error.details ?? undefined,
        error.retryAfterSeconds ?? undefined,
      );
    log.error("execution API refused the dashboard", {
      status: error.status,
      code: error.code,
      apiRequestId: error.requestId,
    });
    return new DomainError("INTERNAL_ERROR", "The dashboard could not submit the job; try again.");
  }
  log.error("execution API unreachable", { err: error, baseUrl: executionApiUrl() });
  return new DomainError("UNAVAILABLE", "The execution API could not be reached; try again shortly.", undefined, 5);
}

export async function runAsDashboard({
  accountId,
  serviceId,
  input,
  placement,
  idempotencyKey,
  log,
}: DashboardRun): Promise<ExecutionJob> {
  for (let attempt = 1; ; attempt++) {
    const key = await dashboardKeyFor(accountId);
    const client = new ExecutionClient({
      apiKey: key.secret,
      baseUrl: executionApiUrl(),
      timeoutMs: 20_000,
      maxRetries: 1,
    });
    try {
      const job = await client.execute(serviceId, input, { idempotencyKey, placement });
      log.info("dashboard run", { jobId: job.jobId, serviceId, keyId: key.keyId });
      return job;
    } catch (error) {
      // Revoked between our check and the API's: the next round replaces the key (once).
      if (attempt === 1 && isApiError(error, "INVALID_API_KEY")) continue;
      throw toDomainError(error, log);
    }
  }
}
