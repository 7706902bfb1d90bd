// ExecutionClient: the API's operations, each a one-liner over the request core (core.ts), plus waiting
// for a job and following its live events. Lists return a PagePromise (pagination.ts).
import { ExecutionAbortError, ExecutionApiError, ExecutionConnectionError, JobWaitTimeoutError } from "./errors.js";
import {
  RequestCore,
  invalidResponse,
  isRetryable,
  parseJson,
  type FetchResponse,
  type RequestOptions,
} from "./core.js";
import { abortErrorOf, pathSegment, sleep, toIsoTime } from "./internal.js";
import { CursorPagePromise, PagePromise, pageQuery, type PageAt } from "./pagination.js";
import { readServerSentEvents } from "./sse.js";
import type { ExecutionReceipt, ReceiptSigners } from "./receipts.js";
import type { WebhookDelivery, WebhookDeliveryDetail, WebhookDeliveryPage } from "./webhooks.js";
import type {
  CreateJobParams,
  CreateNodeParams,
  CreditBalance,
  CreditEntry,
  CreditHistory,
  ExecutionJob,
  ExecutionLog,
  ExecutionService,
  JobList,
  JobStreamEvent,
  ListJobsParams,
  LogPageParams,
  Node,
  NodeList,
  NodeWithToken,
  PageParams,
  Placement,
  ServiceInput,
  TelemetryEvent,
  TelemetryPage,
  TopUp,
  TopUpConfig,
  TopUpPage,
  UsageSummary,
  UsageSummaryParams,
} from "./types.js";

export interface WaitForJobOptions {
  /** Total time to wait. Default 120 000. */
  timeoutMs?: number;
  /** First poll interval; grows while the job does not change. Default 1 500. */
  intervalMs?: number;
  signal?: AbortSignal;
  /** Called with the job on the first poll and whenever it changes. */
  onUpdate?: (job: ExecutionJob) => void;
}

export interface StreamJobEventsOptions {
  signal?: AbortSignal;
  /** Resume after this telemetry sequence (sent as `Last-Event-ID`). */
  lastEventId?: string;
}

export type ListJobsFilters = Omit<ListJobsParams, "page">;

const MAX_POLL_INTERVAL_MS = 10_000;
const DEFAULT_RECONNECT_MS = 1_000;
const MAX_RECONNECT_MS = 30_000;
const HEALTHY_CONNECTION_MS = 10_000;

const isFinalStatus = (status: ExecutionJob["status"]) => status === "completed" || status === "failed";

export class ExecutionClient extends RequestCore {
  // ── Services and execution ──────────────────────────────────────────────────────────────────────

  /** The AI Executions on offer. Public: needs no scope. */
  listServices(options?: RequestOptions): Promise<ExecutionService[]> {
    return this.request({ method: "GET", path: "/api/marketplace/services" }, options);
  }

  /**
   * Submits `input` to the service: creates a Job (asynchronously; the result comes later) and
   * returns it. Needs `services:execute`. Safe to retry with the same `idempotencyKey`.
   */
  execute(
    serviceId: string,
    input: ServiceInput,
    options?: RequestOptions & { placement?: Placement },
  ): Promise<ExecutionJob> {
    const path = `/api/marketplace/services/${pathSegment(serviceId, "serviceId")}/execute`;
    const { placement, ...requestOptions } = options ?? {};
    return this.request(
      { method: "POST", path, body: placement === undefined ? { input } : { input, placement } },
      requestOptions,
    );
  }

  /** Creates a Job from `{ type: "developer_job", payload: { serviceId, input } }`; same rules as `execute`. */
  createJob(params: CreateJobParams, options?: RequestOptions): Promise<ExecutionJob> {
    return this.request({ method: "POST", path: "/api/developers/jobs", body: params }, options);
  }

  // ── Jobs ────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Your jobs, newest first. Needs `jobs:read`. Await it for one page (`params.page`, default 1), or
   * `for await` over it for every matching job from that page on.
   */
  listJobs(params: ListJobsParams = {}, options?: RequestOptions): PagePromise<ExecutionJob, JobList> {
    const { dateFrom, dateTo, page, after, ...rest } = params;
    const query = {
      ...rest,
      dateFrom: dateFrom === undefined ? undefined : toIsoTime(dateFrom, "dateFrom"),
      dateTo: dateTo === undefined ? undefined : toIsoTime(dateTo, "dateTo"),
    };
    const fetchPage = (at: PageAt) =>
      this.request<JobList>({ method: "GET", path: "/api/developers/jobs", query: { ...query, ...at } }, options);
    return new PagePromise({ page, after }, fetchPage, (job) => job.jobId);
  }

  /** @deprecated since 0.2.0: `for await (const job of client.listJobs(filters))`. */
  iterateJobs(filters: ListJobsParams = {}, options?: RequestOptions): AsyncGenerator<ExecutionJob, void, undefined> {
    return this.listJobs(filters, options)[Symbol.asyncIterator]();
  }

  getJob(jobId: string, options?: RequestOptions): Promise<ExecutionJob> {
    return this.request({ method: "GET", path: `/api/developers/jobs/${pathSegment(jobId, "jobId")}` }, options);
  }

  /** The completed job's receipt (409 JOB_NOT_COMPLETED before): check it with `verifyReceipt`. Needs `jobs:read`. */
  getJobReceipt(jobId: string, options?: RequestOptions): Promise<ExecutionReceipt> {
    return this.request(
      { method: "GET", path: `/api/developers/jobs/${pathSegment(jobId, "jobId")}/receipt` },
      options,
    );
  }

  /** The addresses whose receipts the deployment stands behind (public): fetch once, keep, pass to `verifyReceipt`. */
  getReceiptSigners(options?: RequestOptions): Promise<ReceiptSigners> {
    return this.request({ method: "GET", path: "/api/receipts/signers" }, options);
  }

  /**
   * The job's log lines, oldest first, by a cursor on `sequence`. Needs `jobs:read`. Await it for one page
   * (up to `params.limit` lines, at most 1 000, after `params.after`), or `for await` over it for every line
   * from there on.
   */
  listJobLogs(jobId: string, params: LogPageParams = {}, options?: RequestOptions): CursorPagePromise<ExecutionLog> {
    const path = `/api/developers/jobs/${pathSegment(jobId, "jobId")}/logs`;
    const fetchPage = async (after: number | undefined) => {
      const query = { after: after ?? params.after, limit: params.limit };
      const { body, headers } = await this.requestWithHeaders<ExecutionLog[]>({ method: "GET", path, query }, options);
      return { items: body, hasMore: headers["x-has-more"] === "true" };
    };
    return new CursorPagePromise(fetchPage, (line) => line.sequence);
  }

  /**
   * The job's whole log, oldest first, as before logs had pages: every page is followed, so a caller that awaits
   * it never gets a log cut at 1 000 lines without knowing (the server keeps a job's log bounded).
   */
  async getJobLogs(jobId: string, options?: RequestOptions): Promise<ExecutionLog[]> {
    const lines: ExecutionLog[] = [];
    for await (const line of this.listJobLogs(jobId, {}, options)) lines.push(line);
    return lines;
  }

  /** The job's telemetry by sequence. Needs `telemetry:read`. Await it for one page, or `for await` over every event. */
  getJobTelemetry(
    jobId: string,
    params: PageParams = {},
    options?: RequestOptions,
  ): PagePromise<TelemetryEvent, TelemetryPage> {
    const path = `/api/developers/jobs/${pathSegment(jobId, "jobId")}/telemetry`;
    const fetchPage = (at: PageAt) =>
      this.request<TelemetryPage>({ method: "GET", path, query: pageQuery(params, at) }, options);
    return new PagePromise(params, fetchPage, (event) => event.eventId);
  }

  /** @deprecated since 0.2.0: `for await (const event of client.getJobTelemetry(jobId, params))`. */
  iterateJobTelemetry(
    jobId: string,
    params: PageParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<TelemetryEvent, void, undefined> {
    return this.getJobTelemetry(jobId, params, options)[Symbol.asyncIterator]();
  }

  /** Asks the network to stop the job; it ends `failed` (409 `JOB_FINAL` if it already ended). */
  cancelJob(jobId: string, options?: RequestOptions): Promise<ExecutionJob> {
    return this.request(
      { method: "POST", path: `/api/developers/jobs/${pathSegment(jobId, "jobId")}/cancel` },
      options,
    );
  }

  /**
   * Polls the job (with a growing interval) until it is `completed` or `failed` and resolves with it —
   * a failed job resolves too: check `job.status`. Rejects with JobWaitTimeoutError, carrying the last
   * state seen, when `timeoutMs` passes first. Transient errors while polling do not end the wait.
   */
  async waitForJob(jobId: string, options: WaitForJobOptions = {}): Promise<ExecutionJob> {
    const { timeoutMs = 120_000, intervalMs = 1_500, signal, onUpdate } = options;
    if (signal?.aborted) throw abortErrorOf(signal);
    const stop = new AbortController();
    const onCallerAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, timeoutMs);
    let last: ExecutionJob | null = null;
    let lastError: unknown;
    let interval = intervalMs;
    try {
      for (;;) {
        try {
          const job = await this.getJob(jobId, { signal: stop.signal });
          const changed =
            last === null ||
            job.status !== last.status ||
            job.progress !== last.progress ||
            job.updatedAt !== last.updatedAt;
          last = job;
          if (changed) onUpdate?.(job);
          if (isFinalStatus(job.status)) return job;
          interval = changed ? intervalMs : Math.min(interval * 1.5, Math.max(intervalMs, MAX_POLL_INTERVAL_MS));
        } catch (error) {
          if (!isRetryable(error)) throw error;
          lastError = error;
          interval = Math.min(interval * 1.5, Math.max(intervalMs, MAX_POLL_INTERVAL_MS));
        }
        await sleep(interval, stop.signal);
      }
    } catch (error) {
      if (timedOut && error instanceof ExecutionAbortError) {
        throw new JobWaitTimeoutError(jobId, timeoutMs, last, { cause: lastError });
      }
      throw error;
    } finally {
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  /**
   * The job's live events: a `status` message with the job whenever its state changes, a `telemetry`
   * message with each TelemetryEvent. Reconnects with `Last-Event-ID` when the connection drops, and
   * ends when the server closes the stream after the job's final state. `break` out to stop listening.
   */
  async *streamJobEvents(
    jobId: string,
    options: StreamJobEventsOptions = {},
  ): AsyncGenerator<JobStreamEvent, void, undefined> {
    const { signal } = options;
    const path = `/api/developers/jobs/${pathSegment(jobId, "jobId")}/events`;
    let lastEventId = options.lastEventId ?? null;
    let reconnectMs = DEFAULT_RECONNECT_MS;
    let failuresInARow = 0;
    let finished = false;
    // The server restates the job on every connection; an unchanged state is neither news nor progress.
    let lastState = "";
    for (;;) {
      const headers: Record<string, string> = {
        accept: "text/event-stream",
        ...(lastEventId === null ? {} : { "last-event-id": lastEventId }),
      };
      const open = await this.openStream({ method: "GET", path, headers }, { signal });
      const openedAt = Date.now();
      let progressed = false;
      let dropped: unknown = null;
      try {
        if (open.response.body === null) throw new ExecutionConnectionError("The event stream response has no body.");
        const events = readServerSentEvents(open.response.body, {
          signal: open.signal,
          lastEventId,
          onRetry: (ms) => (reconnectMs = ms),
        });
        for await (const message of events) {
          const event = streamEventOf(message.event, message.data, message.lastEventId, open.response);
          if (message.lastEventId !== lastEventId) {
            lastEventId = message.lastEventId;
            progressed = true;
          }
          if (event?.type === "status") {
            const { status, progress, attempt, updatedAt } = event.job;
            const state = `${status}:${progress}:${attempt}:${updatedAt}`;
            if (isFinalStatus(status)) finished = true;
            if (state === lastState) continue;
            lastState = state;
            progressed = true;
          }
          if (event !== null) yield event;
        }
        if (finished) return;
      } catch (error) {
        if (signal?.aborted) throw abortErrorOf(signal);
        if (error instanceof ExecutionApiError) throw error;
        dropped = error;
      } finally {
        open.release();
      }
      // A connection that brought news, or lived a while (heartbeats only), was healthy: only
      // connections that fail without either count toward giving up.
      failuresInARow = progressed || Date.now() - openedAt >= HEALTHY_CONNECTION_MS ? 0 : failuresInARow + 1;
      if (failuresInARow > this.maxRetries) {
        throw new ExecutionConnectionError(`The event stream of job ${jobId} kept closing without data.`, {
          cause: dropped,
        });
      }
      await sleep(Math.min(reconnectMs * 2 ** failuresInARow, MAX_RECONNECT_MS), signal);
    }
  }

  // ── Usage and credits ───────────────────────────────────────────────────────────────────────────

  /** Jobs, success rate, durations and credits used in a period (default: the last 30 days). */
  getUsageSummary(params: UsageSummaryParams = {}, options?: RequestOptions): Promise<UsageSummary> {
    const query = {
      periodStart: params.periodStart === undefined ? undefined : toIsoTime(params.periodStart, "periodStart"),
      periodEnd: params.periodEnd === undefined ? undefined : toIsoTime(params.periodEnd, "periodEnd"),
    };
    return this.request({ method: "GET", path: "/api/developers/metrics", query }, options);
  }

  /** The usage summary of the default period (the last 30 days). */
  getMetrics(options?: RequestOptions): Promise<UsageSummary> {
    return this.getUsageSummary({}, options);
  }

  getCreditBalance(options?: RequestOptions): Promise<CreditBalance> {
    return this.request({ method: "GET", path: "/api/credits/balance" }, options);
  }

  /** The credit ledger, newest first. Await it for one page, or `for await` over every entry. */
  getCreditHistory(params: PageParams = {}, options?: RequestOptions): PagePromise<CreditEntry, CreditHistory> {
    const fetchPage = (at: PageAt) =>
      this.request<CreditHistory>(
        { method: "GET", path: "/api/credits/history", query: pageQuery(params, at) },
        options,
      );
    return new PagePromise(params, fetchPage, (entry) => entry.entryId);
  }

  /** @deprecated since 0.2.0: `for await (const entry of client.getCreditHistory(params))`. */
  iterateCreditHistory(
    params: PageParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<CreditEntry, void, undefined> {
    return this.getCreditHistory(params, options)[Symbol.asyncIterator]();
  }

  /**
   * Credits bought with the wallet (CONTRACT §10): payments are made from the dashboard's Credits page;
   * a key with `credits:read` follows them here. A credited top-up is a `topup` entry (with its `topUpId`)
   * in `getCreditHistory`.
   */
  readonly topUps = {
    /** Whether this deployment takes payments, and how (chain, token, treasury, price). Needs no key. */
    config: (options?: RequestOptions): Promise<TopUpConfig> =>
      this.request({ method: "GET", path: "/api/credits/top-ups/config" }, options),
    /** Top-ups, newest first. Await it for one page, or `for await` over every top-up. */
    list: (params: PageParams = {}, options?: RequestOptions): PagePromise<TopUp, TopUpPage> => {
      const fetchPage = (at: PageAt) =>
        this.request<TopUpPage>({ method: "GET", path: "/api/credits/top-ups", query: pageQuery(params, at) }, options);
      return new PagePromise(params, fetchPage, (topUp) => topUp.topUpId);
    },
    get: (topUpId: string, options?: RequestOptions): Promise<TopUp> =>
      this.request({ method: "GET", path: `/api/credits/top-ups/${pathSegment(topUpId, "topUpId")}` }, options),
  };

  /**
   * Your own execution nodes (CONTRACT §12). Needs `nodes:manage`. A node's token is returned only by
   * `create` and `rotateToken`; start the node with `npx @execution-network/node --url <api> --token <token>`.
   */
  readonly nodes = {
    /** Adds a node (at most 20; 409 `LIMIT_REACHED`). The token in the answer is shown once. */
    create: (params: CreateNodeParams, options?: RequestOptions): Promise<NodeWithToken> =>
      this.request({ method: "POST", path: "/api/developers/nodes", body: params }, options),
    /** Your nodes, newest first, revoked ones included. */
    list: (options?: RequestOptions): Promise<NodeList> =>
      this.request({ method: "GET", path: "/api/developers/nodes" }, options),
    get: (nodeId: string, options?: RequestOptions): Promise<Node> =>
      this.request({ method: "GET", path: `/api/developers/nodes/${pathSegment(nodeId, "nodeId")}` }, options),
    /** A new token; the old one stops working at once. */
    rotateToken: (nodeId: string, options?: RequestOptions): Promise<NodeWithToken> =>
      this.request(
        { method: "POST", path: `/api/developers/nodes/${pathSegment(nodeId, "nodeId")}/rotate-token` },
        options,
      ),
    /** Revokes the node: its token stops working and the jobs it was running are routed again. Idempotent. */
    revoke: (nodeId: string, options?: RequestOptions): Promise<Node> =>
      this.request({ method: "DELETE", path: `/api/developers/nodes/${pathSegment(nodeId, "nodeId")}` }, options),
  };

  /** Webhooks (CONTRACT §8). Needs `webhooks:manage`. Verify what your endpoint receives with `verifyWebhook`. */
  readonly webhooks = {
    /** An endpoint's deliveries: what was sent, what your endpoint answered, and sending one again. */
    deliveries: {
      /** Newest first. Await it for one page, or `for await` over every delivery. */
      list: (
        endpointId: string,
        params: PageParams = {},
        options?: RequestOptions,
      ): PagePromise<WebhookDelivery, WebhookDeliveryPage> => {
        const path = `/api/developers/webhooks/${pathSegment(endpointId, "endpointId")}/deliveries`;
        const fetchPage = (at: PageAt) =>
          this.request<WebhookDeliveryPage>({ method: "GET", path, query: pageQuery(params, at) }, options);
        return new PagePromise(params, fetchPage, (delivery) => delivery.deliveryId);
      },
      /** The request as sent (headers and exact body) and the last 20 attempts with the answers. */
      retrieve: (endpointId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDeliveryDetail> =>
        this.request({ method: "GET", path: deliveryPath(endpointId, deliveryId) }, options),
      /** Sends the same event (same `webhook-id`) again. */
      redeliver: (endpointId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> =>
        this.request({ method: "POST", path: `${deliveryPath(endpointId, deliveryId)}/redeliver` }, options),
    },
  };
}

const deliveryPath = (endpointId: string, deliveryId: string) =>
  `/api/developers/webhooks/${pathSegment(endpointId, "endpointId")}/deliveries/${pathSegment(deliveryId, "deliveryId")}`;

function streamEventOf(event: string, data: string, id: string | null, response: FetchResponse): JobStreamEvent | null {
  // Other event names (and unnamed messages) are for newer clients; skipping them keeps this one working.
  if (event !== "status" && event !== "telemetry") return null;
  const parsed = parseJson(data);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) {
    throw invalidResponse(response, data, `a "${event}" event that is not a JSON object`);
  }
  return event === "status"
    ? { type: "status", id, job: parsed.value as ExecutionJob }
    : { type: "telemetry", id, event: parsed.value as TelemetryEvent };
}
