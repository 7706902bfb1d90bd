// HTTP transport for standalone nodes: the /api/nodes/… routes with a bearer node token.
// Transient failures (network, 5xx, 429) are retried with backoff; a refused report stops the job.
import { injectActiveContext } from "@/lib/tracing";
import { JobRevokedError, NodeTokenRefusedError, type CoordinatorTransport } from "./transport";
import { sleep } from "./sleep";

export interface HttpTransportOptions {
  baseUrl: string;
  token: string;
  /** Per-request timeout beyond any long-poll wait. */
  timeoutMs?: number;
  maxRetries?: number;
}

class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The server's Retry-After (429, 503), in milliseconds. */
    readonly retryAfterMs = 0,
  ) {
    super(message);
  }
}

const retryAfterMsOf = (res: Response) => Math.max(0, Number(res.headers.get("retry-after")) || 0) * 1000;

export function httpTransport(options: HttpTransportOptions): CoordinatorTransport {
  const base = options.baseUrl.replace(/\/$/, "");
  const maxRetries = options.maxRetries ?? 5;

  async function call<T>(
    path: string,
    body: unknown,
    extra: { waitMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout((options.timeoutMs ?? 15_000) + (extra.waitMs ?? 0));
      const signal = extra.signal ? AbortSignal.any([timeout, extra.signal]) : timeout;
      try {
        const res = await fetch(`${base}/api/nodes/${path}`, {
          method: "POST",
          // A report made while a job's execution span is active joins the job's trace (tracing on).
          headers: injectActiveContext({
            authorization: `Bearer ${options.token}`,
            "content-type": "application/json",
          }),
          body: JSON.stringify(body),
          signal,
        });
        const text = await res.text();
        const parsed: unknown = text ? JSON.parse(text) : {};
        if (res.ok) return parsed as T;
        const error = (parsed as { error?: { code?: string; message?: string } }).error ?? {};
        // JOB_FINAL: what a coordinator from before one answer for every job not held said of an ended one.
        if (error.code === "JOB_FINAL" || error.code === "LEASE_LOST")
          throw new JobRevokedError(error.code, error.message ?? error.code);
        if (error.code === "INVALID_NODE_TOKEN") throw new NodeTokenRefusedError(error.message ?? error.code);
        throw new HttpStatusError(
          res.status,
          error.code ?? "HTTP_ERROR",
          error.message ?? `HTTP ${res.status}`,
          retryAfterMsOf(res),
        );
      } catch (error) {
        if (extra.signal?.aborted) throw error;
        const transient =
          !(error instanceof JobRevokedError) &&
          !(error instanceof NodeTokenRefusedError) &&
          (!(error instanceof HttpStatusError) || error.status >= 500 || error.status === 429);
        if (!transient || attempt >= maxRetries) throw error;
        const backoff = Math.min(5_000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);
        // A rate-limited node waits as long as the server says, or its next try counts against the limit too.
        const asked = error instanceof HttpStatusError ? error.retryAfterMs : 0;
        await sleep(Math.max(backoff, asked), extra.signal);
      }
    }
  }

  return {
    // The node runs a job as soon as it has it: its claim starts it, saving a request per job.
    startsOnClaim: true,
    register: (registration) => call("register", registration),
    heartbeat: (activeJobIds) => call("heartbeat", { activeJobIds }),
    claim: async (max, waitMs, signal) =>
      (
        await call<{ jobs: Awaited<ReturnType<CoordinatorTransport["claim"]>> }>(
          "claim",
          { max, waitMs, start: true },
          { waitMs, signal },
        )
      ).jobs,
    start: (jobId, attempt) => call(`jobs/${jobId}/start`, { attempt }),
    progress: (jobId, attempt, report) => call(`jobs/${jobId}/progress`, { attempt, ...report }),
    complete: (jobId, attempt, result, report) => call(`jobs/${jobId}/complete`, { attempt, result, ...report }),
    fail: (jobId, attempt, failure) => call(`jobs/${jobId}/fail`, { attempt, ...failure }),
    release: (jobId, attempt, reason) => call(`jobs/${jobId}/release`, { attempt, reason }),
    drain: () => call("drain", {}),
    stop: () => call("stop", {}),
  };
}
