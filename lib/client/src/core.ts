// The request core of the client: configuration, one request() that owns timeouts, retries, idempotency
// keys and error mapping, and the streamed variant the event stream uses. Operations live in client.ts.
import {
  ExecutionApiError,
  ExecutionConnectionError,
  ExecutionNetworkError,
  ExecutionTimeoutError,
  KeyCreditLimitError,
} from "./errors.js";
import { abortErrorOf, newIdempotencyKey, parseRetryAfter, sleep, untilAborted } from "./internal.js";
import type { ByteStream } from "./sse.js";
import { traceHeaders } from "./tracing.js";
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

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** A longer `Retry-After` is not waited out inside one call: the error goes to the caller. */
const MAX_RETRY_AFTER_SECONDS = 60;

/** Whether a failed attempt may be repeated (POSTs always carry their idempotency key, so they may too). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ExecutionApiError) return RETRYABLE_STATUSES.has(error.status);
  return error instanceof ExecutionTimeoutError || error instanceof ExecutionConnectionError;
}

function isBrowser(): boolean {
  return (
    typeof (globalThis as { window?: unknown }).window !== "undefined" &&
    typeof (globalThis as { document?: unknown }).document !== "undefined"
  );
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

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function apiErrorOf(response: FetchResponse, text: string): ExecutionApiError {
  const parsed = parseJson(text);
  const body = parsed.ok ? parsed.value : text;
  const envelope = (
    body as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } } | null
  )?.error;
  const hasEnvelope = typeof envelope === "object" && envelope !== null && typeof envelope.code === "string";
  const details =
    hasEnvelope && typeof envelope.details === "object" && envelope.details !== null
      ? (envelope.details as Record<string, unknown>)
      : null;
  const code = hasEnvelope ? (envelope.code as string) : "UNKNOWN_ERROR";
  return new (code === "KEY_CREDIT_LIMIT" ? KeyCreditLimitError : ExecutionApiError)({
    status: response.status,
    code,
    message:
      hasEnvelope && typeof envelope.message === "string"
        ? envelope.message
        : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
    requestId:
      hasEnvelope && typeof envelope.requestId === "string" ? envelope.requestId : response.headers.get("x-request-id"),
    retryAfterSeconds: parseRetryAfter(response.headers.get("retry-after")),
    details,
    response: body,
    headers: headersOf(response),
  });
}

export function invalidResponse(response: FetchResponse, text: string, why: string): ExecutionApiError {
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
export interface OpenResponse {
  response: FetchResponse;
  /** Fires when the caller aborts or the response is released. */
  signal: AbortSignal;
  release(): void;
}

/** A parsed JSON body with the response's headers (lower-case names). @internal */
export interface JsonWithHeaders<T> {
  body: T;
  headers: Record<string, string>;
}

type Mode = "json" | "headers" | "stream";
type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: ExecutionNetworkError };

export class RequestCore {
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
      throw new ExecutionNetworkError(`baseUrl must be an absolute http(s) URL; got ${String(options.baseUrl)}.`, {
        cause,
      });
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new ExecutionNetworkError(`baseUrl must be an http(s) URL; got ${options.baseUrl}.`);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs))
      throw new ExecutionNetworkError("timeoutMs must be a positive number.");
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new ExecutionNetworkError("maxRetries must be an integer ≥ 0.");
    const globalFetch = (globalThis as { fetch?: FetchLike }).fetch;
    const fetchImpl =
      options.fetch ?? (globalFetch ? (url: string, init: FetchInit) => globalFetch(url, init) : undefined);
    if (!fetchImpl) throw new ExecutionNetworkError("No fetch implementation: use Node.js ≥ 18 or pass options.fetch.");

    this.baseUrl = base.href.replace(/\/+$/, "");
    this.timeoutMs = timeoutMs;
    this.maxRetries = maxRetries;
    this.#apiKey = options.apiKey;
    this.#fetch = fetchImpl;
  }

  // ── The core ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Sends one API call and returns its parsed JSON body: the core every operation uses, public for
   * routes this version does not wrap yet.
   */
  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    return (await this.#send(spec, options, "json")) as T;
  }

  /** request(), keeping the response's headers (a list paged in headers). @internal */
  protected async requestWithHeaders<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<JsonWithHeaders<T>> {
    return (await this.#send(spec, options, "headers")) as JsonWithHeaders<T>;
  }

  /** Opens a streamed response (e.g. Server-Sent Events) with the same retries as request(). @internal */
  protected openStream(spec: RequestSpec, options: RequestOptions): Promise<OpenResponse> {
    return this.#send(spec, options, "stream");
  }

  #send(spec: RequestSpec, options: RequestOptions, mode: "json" | "headers"): Promise<unknown>;
  #send(spec: RequestSpec, options: RequestOptions, mode: "stream"): Promise<OpenResponse>;
  async #send(spec: RequestSpec, options: RequestOptions, mode: Mode): Promise<unknown> {
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
        ...(await traceHeaders()),
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
    mode: Mode,
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
      const reason =
        cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause);
      return {
        ok: false,
        error: new ExecutionConnectionError(`Could not reach the Execution Network API: ${reason}`, { cause }),
      };
    }
    release();

    if (!response.ok) return { ok: false, error: apiErrorOf(response, text) };
    if (mode === "stream") return { ok: false, error: invalidResponse(response, text, "no event stream") };
    let body: unknown = undefined;
    if (response.status !== 204 && text !== "") {
      const parsed = parseJson(text);
      if (!parsed.ok) throw invalidResponse(response, text, "a body that is not JSON");
      body = parsed.value;
    }
    return { ok: true, value: mode === "headers" ? { body, headers: headersOf(response) } : body };
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
