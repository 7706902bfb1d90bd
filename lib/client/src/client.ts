// ExecutionClient: one request() core owns timeouts, retries, idempotency and error mapping; every
// operation is a one-liner over it.
import {
  ExecutionAbortError,
  ExecutionApiError,
  ExecutionConnectionError,
  ExecutionNetworkError,
  ExecutionTimeoutError,
  JobWaitTimeoutError,
} from "./errors.js";
import {
  abortErrorOf,
  newIdempotencyKey,
  parseRetryAfter,
  pathSegment,
  sleep,
  toIsoTime,
  untilAborted,
} from "./internal.js";
import { readServerSentEvents, type ByteStream } from "./sse.js";
import type {
  CreateJobParams,
  CreditBalance,
  CreditEntry,
  CreditHistory,
  ExecutionJob,
  ExecutionLog,
  ExecutionService,
  JobList,
  JobStreamEvent,
  ListJobsParams,
  Page,
  PageParams,
  ServiceInput,
  TelemetryEvent,
  TelemetryPage,
  UsageSummary,
  UsageSummaryParams,
} from "./types.js";
import { VERSION } from "./version.js";

/** The part of the Fetch API the client uses; the global `fetch` (Node ≥ 18) fits, as do undici's and most mocks. */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface FetchResponse {
  status: number;
  statusText: string;
  ok: boolean;
  headers: { get(name: string): string | null; forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
  body: ByteStream | null;
}

export interface ClientOptions {
  /** A server-side secret (`dev_…`); sent as `x-api-key` on every request. */
  apiKey: string;
  /** Where the API lives, e.g. `https://execution.example.com`. */
  baseUrl: string;
  /** Per attempt, from sending the request to reading the whole response. Default 30 000. */
  timeoutMs?: number;
  /** Retries of 429, 502, 503, 504, timeouts and network errors. Default 2. */
  maxRetries?: number;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /**
   * The client refuses to run in a browser, where the API key would be public. Set this only when the
   * page is trusted and the key is not a secret (e.g. a local tool).
   */
  dangerouslyAllowBrowser?: boolean;
}

export interface RequestOptions {
  /** Cancels the call at once, including retries and waits. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
  /** Overrides the client's retry count. */
  maxRetries?: number;
  /**
   * `Idempotency-Key` of a POST. Generated when absent and reused on every retry of the call; pass your
   * own to make retries across calls (or processes) safe: one key per execution intent.
   */
  idempotencyKey?: string;
}

export interface RequestSpec {
  method: "GET" | "POST" | "DELETE";
  /** Path under the base URL, starting with `/`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

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

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** A longer `Retry-After` is not waited out inside one call: the error goes to the caller. */
const MAX_RETRY_AFTER_SECONDS = 60;
const MAX_POLL_INTERVAL_MS = 10_000;
const DEFAULT_RECONNECT_MS = 1_000;
const MAX_RECONNECT_MS = 30_000;
const HEALTHY_CONNECTION_MS = 10_000;

const isFinalStatus = (status: ExecutionJob["status"]) => status === "completed" || status === "failed";

/** Whether a failed attempt may be repeated (POSTs always carry their idempotency key, so they may too). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ExecutionApiError) return RETRYABLE_STATUSES.has(error.status);
  return error instanceof ExecutionTimeoutError || error instanceof ExecutionConnectionError;
}

function isBrowser(): boolean {
  return typeof (globalThis as { window?: unknown }).window !== "undefined" && typeof (globalThis as { document?: unknown }).document !== "undefined";
}

function runtimeVersion(): string {
  return (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node ?? "unknown";
}

function headersOf(response: FetchResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return headers;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function apiErrorOf(response: FetchResponse, text: string): ExecutionApiError {
  const parsed = parseJson(text);
  const body = parsed.ok ? parsed.value : text;
  const envelope = (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } } | null)?.error;
  const hasEnvelope = typeof envelope === "object" && envelope !== null && typeof envelope.code === "string";
  const details = hasEnvelope && typeof envelope.details === "object" && envelope.details !== null ? (envelope.details as Record<string, unknown>) : null;
  return new ExecutionApiError({
    status: response.status,
    code: hasEnvelope ? (envelope.code as string) : "UNKNOWN_ERROR",
    message:
      hasEnvelope && typeof envelope.message === "string"
        ? envelope.message
        : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
    requestId: hasEnvelope && typeof envelope.requestId === "string" ? envelope.requestId : response.headers.get("x-request-id"),
    retryAfterSeconds: parseRetryAfter(response.headers.get("retry-after")),
    details,
    response: body,
    headers: headersOf(response),
  });
}

function invalidResponse(response: FetchResponse, text: string, why: string): ExecutionApiError {
  return new ExecutionApiError({
    status: response.status,
    code: "INVALID_RESPONSE",
    message: `The API answered ${response.status} with ${why}.`,
    requestId: response.headers.get("x-request-id"),
    retryAfterSeconds: null,
    details: null,
    response: text,
    headers: headersOf(response),
  });
}

/** A live response whose body the caller reads; `release()` closes it and unlinks the caller's signal. */
interface OpenResponse {
  response: FetchResponse;
  /** Fires when the caller aborts or the response is released. */
  signal: AbortSignal;
  release(): void;
}

type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: ExecutionNetworkError };

export class ExecutionClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #userAgent = `execution-network-client/${VERSION} node/${runtimeVersion()}`;

  constructor(options: ClientOptions) {
    if (isBrowser() && !options.dangerouslyAllowBrowser) {
      throw new ExecutionNetworkError(
        "ExecutionClient is server-side only: in a browser your API key would be exposed to every visitor. " +
          "Call the API from your backend, or pass { dangerouslyAllowBrowser: true } if you understand the risk.",
      );
    }
    if (typeof options.apiKey !== "string" || options.apiKey.length === 0) {
      throw new ExecutionNetworkError("apiKey is required (an Execution Network API key, dev_…).");
    }
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch (cause) {
      throw new ExecutionNetworkError(`baseUrl must be an absolute http(s) URL; got ${String(options.baseUrl)}.`, { cause });
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new ExecutionNetworkError(`baseUrl must be an http(s) URL; got ${options.baseUrl}.`);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new ExecutionNetworkError("timeoutMs must be a positive number.");
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new ExecutionNetworkError("maxRetries must be an integer ≥ 0.");
    const globalFetch = (globalThis as { fetch?: FetchLike }).fetch;
    const fetchImpl = options.fetch ?? (globalFetch ? (url: string, init: FetchInit) => globalFetch(url, init) : undefined);
    if (!fetchImpl) throw new ExecutionNetworkError("No fetch implementation: use Node.js ≥ 18 or pass options.fetch.");

    this.baseUrl = base.href.replace(/\/+$/, "");
    this.timeoutMs = timeoutMs;
    this.maxRetries = maxRetries;
    this.#apiKey = options.apiKey;
    this.#fetch = fetchImpl;
  }

  // ── Services and execution ──────────────────────────────────────────────────────────────────────

  /** The AI Executions on offer. Public: needs no scope. */
  listServices(options?: RequestOptions): Promise<ExecutionService[]> {
    return this.request({ method: "GET", path: "/api/marketplace/services" }, options);
  }

  /**
   * Submits `input` to the service: creates a Job (asynchronously; the result comes later) and
   * returns it. Needs `services:execute`. Safe to retry with the same `idempotencyKey`.
   */
  execute(serviceId: string, input: ServiceInput, options?: RequestOptions): Promise<ExecutionJob> {
    const path = `/api/marketplace/services/${pathSegment(serviceId, "serviceId")}/execute`;
    return this.request({ method: "POST", path, body: { input } }, options);
  }

  /** Creates a Job from `{ type: "developer_job", payload: { serviceId, input } }`; same rules as `execute`. */
  createJob(params: CreateJobParams, options?: RequestOptions): Promise<ExecutionJob> {
    return this.request({ method: "POST", path: "/api/developers/jobs", body: params }, options);
  }

  // ── Jobs ────────────────────────────────────────────────────────────────────────────────────────

  /** One page of your jobs, newest first. Needs `jobs:read`. */
  listJobs(params: ListJobsParams = {}, options?: RequestOptions): Promise<JobList> {
    const { dateFrom, dateTo, ...rest } = params;
    const query = {
      ...rest,
      dateFrom: dateFrom === undefined ? undefined : toIsoTime(dateFrom, "dateFrom"),
      dateTo: dateTo === undefined ? undefined : toIsoTime(dateTo, "dateTo"),
    };
    return this.request({ method: "GET", path: "/api/developers/jobs", query }, options);
  }

  /** Every job matching `filters`, page after page (from `filters.page`, default 1). */
  iterateJobs(filters: ListJobsParams = {}, options?: RequestOptions): AsyncGenerator<ExecutionJob, void, undefined> {
    return paginate(filters.page ?? 1, (page) => this.listJobs({ ...filters, page }, options), (job) => job.jobId);
  }

  getJob(jobId: string, options?: RequestOptions): Promise<ExecutionJob> {
    return this.request({ method: "GET", path: `/api/developers/jobs/${pathSegment(jobId, "jobId")}` }, options);
  }

  /** The job's log lines, oldest first. */
  getJobLogs(jobId: string, options?: RequestOptions): Promise<ExecutionLog[]> {
    return this.request({ method: "GET", path: `/api/developers/jobs/${pathSegment(jobId, "jobId")}/logs` }, options);
  }

  /** One page of the job's telemetry, by sequence. Needs `telemetry:read`. */
  getJobTelemetry(jobId: string, params: PageParams = {}, options?: RequestOptions): Promise<TelemetryPage> {
    const path = `/api/developers/jobs/${pathSegment(jobId, "jobId")}/telemetry`;
    return this.request({ method: "GET", path, query: { ...params } }, options);
  }

  /** All of the job's telemetry events, in sequence order. */
  iterateJobTelemetry(jobId: string, params: PageParams = {}, options?: RequestOptions): AsyncGenerator<TelemetryEvent, void, undefined> {
    return paginate(params.page ?? 1, (page) => this.getJobTelemetry(jobId, { ...params, page }, options), (event) => event.eventId);
  }

  /** Asks the network to stop the job; it ends `failed` (409 `JOB_FINAL` if it already ended). */
  cancelJob(jobId: string, options?: RequestOptions): Promise<ExecutionJob> {
    return this.request({ method: "POST", path: `/api/developers/jobs/${pathSegment(jobId, "jobId")}/cancel` }, options);
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
          const changed = last === null || job.status !== last.status || job.progress !== last.progress || job.updatedAt !== last.updatedAt;
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
  async *streamJobEvents(jobId: string, options: StreamJobEventsOptions = {}): AsyncGenerator<JobStreamEvent, void, undefined> {
    const { signal } = options;
    const path = `/api/developers/jobs/${pathSegment(jobId, "jobId")}/events`;
    let lastEventId = options.lastEventId ?? null;
    let reconnectMs = DEFAULT_RECONNECT_MS;
    let failuresInARow = 0;
    let finished = false;
    // The server restates the job on every connection; an unchanged state is neither news nor progress.
    let lastState = "";
    for (;;) {
      const headers: Record<string, string> = { accept: "text/event-stream", ...(lastEventId === null ? {} : { "last-event-id": lastEventId }) };
      const open = await this.#send({ method: "GET", path, headers }, { signal }, "stream");
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
        throw new ExecutionConnectionError(`The event stream of job ${jobId} kept closing without data.`, { cause: dropped });
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

  /** One page of the credit ledger, newest first. */
  getCreditHistory(params: PageParams = {}, options?: RequestOptions): Promise<CreditHistory> {
    return this.request({ method: "GET", path: "/api/credits/history", query: { ...params } }, options);
  }

  /** The whole credit ledger, newest first. */
  iterateCreditHistory(params: PageParams = {}, options?: RequestOptions): AsyncGenerator<CreditEntry, void, undefined> {
    return paginate(params.page ?? 1, (page) => this.getCreditHistory({ ...params, page }, options), (entry) => entry.entryId);
  }

  // ── The core ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Sends one API call and returns its parsed JSON body: the core every operation uses, public for
   * routes this version does not wrap yet.
   */
  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    return (await this.#send(spec, options, "json")) as T;
  }

  #send(spec: RequestSpec, options: RequestOptions, mode: "json"): Promise<unknown>;
  #send(spec: RequestSpec, options: RequestOptions, mode: "stream"): Promise<OpenResponse>;
  async #send(spec: RequestSpec, options: RequestOptions, mode: "json" | "stream"): Promise<unknown> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const maxRetries = options.maxRetries ?? this.maxRetries;
    // A POST is retried only with its idempotency key: the same key on every attempt makes the
    // server replay the first outcome instead of creating a second job.
    const idempotencyKey = options.idempotencyKey || (spec.method === "POST" ? await newIdempotencyKey() : undefined);
    const hasBody = spec.body !== undefined;
    const init = {
      method: spec.method,
      headers: {
        accept: "application/json",
        "user-agent": this.#userAgent,
        "x-api-key": this.#apiKey,
        ...(hasBody ? { "content-type": "application/json" } : {}),
        ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
        ...spec.headers,
      },
      ...(hasBody ? { body: JSON.stringify(spec.body) } : {}),
    };
    const url = this.#urlOf(spec.path, spec.query);

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw abortErrorOf(signal);
      const outcome = await this.#attempt(url, init, timeoutMs, signal, mode);
      if (outcome.ok) return outcome.value;
      const { error } = outcome;
      if (attempt >= maxRetries || !isRetryable(error)) throw error;
      const delayMs = retryDelayMs(attempt, error);
      if (delayMs === null) throw error;
      await sleep(delayMs, signal);
    }
  }

  async #attempt(
    url: string,
    init: Omit<FetchInit, "signal">,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    mode: "json" | "stream",
  ): Promise<AttemptOutcome<unknown>> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const release = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };

    let response: FetchResponse;
    let text: string;
    try {
      response = await untilAborted(this.#fetch(url, { ...init, signal: controller.signal }), controller.signal);
      if (mode === "stream" && response.ok) {
        // The stream lives on: only the wait for its headers was timed.
        clearTimeout(timer);
        const open: OpenResponse = {
          response,
          signal: controller.signal,
          release: () => {
            release();
            controller.abort();
          },
        };
        return { ok: true, value: open };
      }
      text = await untilAborted(response.text(), controller.signal);
    } catch (cause) {
      release();
      if (signal?.aborted) throw abortErrorOf(signal);
      if (timedOut) return { ok: false, error: new ExecutionTimeoutError(timeoutMs) };
      const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
      return { ok: false, error: new ExecutionConnectionError(`Could not reach the Execution Network API: ${reason}`, { cause }) };
    }
    release();

    if (!response.ok) return { ok: false, error: apiErrorOf(response, text) };
    if (mode === "stream") return { ok: false, error: invalidResponse(response, text, "no event stream") };
    if (response.status === 204 || text === "") return { ok: true, value: undefined };
    const parsed = parseJson(text);
    if (!parsed.ok) throw invalidResponse(response, text, "a body that is not JSON");
    return { ok: true, value: parsed.value };
  }

  #urlOf(path: string, query: RequestSpec["query"]): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }
}

/** Retry-After when the server gives one (up to a minute), else exponential backoff with jitter. */
function retryDelayMs(attempt: number, error: ExecutionNetworkError): number | null {
  if (error instanceof ExecutionApiError && error.retryAfterSeconds !== null) {
    return error.retryAfterSeconds <= MAX_RETRY_AFTER_SECONDS ? error.retryAfterSeconds * 1000 : null;
  }
  const ceiling = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** attempt, MAX_RETRY_DELAY_MS);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

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

/** Items of consecutive pages until `hasMore` is false; skips items a shifting list shows twice. */
async function* paginate<T>(firstPage: number, fetchPage: (page: number) => Promise<Page<T>>, keyOf: (item: T) => string): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  for (let page = firstPage; ; page++) {
    const { data, pagination } = await fetchPage(page);
    for (const item of data) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      yield item;
    }
    if (!pagination.hasMore || data.length === 0) return;
  }
}
