// The browser's one way to call the product's API: same-origin JSON, and every failure turned into an
// ApiError carrying the contract's error envelope (code, message, request id). A 401 on the dashboard's own
// data means the session ended (expired, signed out elsewhere): that is recorded once, here, so every page
// shows the same "Your session has ended" (components/dashboard/session-ended.tsx), whichever call saw it.

let hasSessionEnded = false;
const sessionListeners = new Set<() => void>();

/** Whether a dashboard call was refused for want of a session (for useSyncExternalStore). */
export const sessionEnded = {
  get: () => hasSessionEnded,
  subscribe(listener: () => void) {
    sessionListeners.add(listener);
    return () => void sessionListeners.delete(listener);
  },
  /** Signing in again starts a fresh session. */
  reset() {
    hasSessionEnded = false;
    sessionListeners.forEach((listener) => listener());
  },
};

function noteSessionEnded() {
  if (hasSessionEnded) return;
  hasSessionEnded = true;
  sessionListeners.forEach((listener) => listener());
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const isApiError = (error: unknown, code?: string): error is ApiError =>
  error instanceof ApiError && (code === undefined || error.code === code);

interface ErrorEnvelope {
  error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown };
}

function errorFrom(response: Response, body: unknown): ApiError {
  const envelope = (body ?? {}) as ErrorEnvelope;
  const e = envelope.error;
  const requestId =
    typeof e?.requestId === "string" ? e.requestId : (response.headers.get("x-request-id") ?? undefined);
  if (e && typeof e.code === "string" && typeof e.message === "string") {
    const details = e.details && typeof e.details === "object" ? (e.details as Record<string, unknown>) : undefined;
    return new ApiError(response.status, e.code, e.message, requestId, details);
  }
  return new ApiError(
    response.status,
    `HTTP_${response.status}`,
    `The server answered ${response.status} ${response.statusText}.`,
    requestId,
  );
}

export interface ApiRequestInit {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
  /** Extra request headers (e.g. Idempotency-Key). */
  headers?: Record<string, string>;
}

export async function apiFetch<T>(path: string, init: ApiRequestInit = {}): Promise<T> {
  return (await apiFetchWithHeaders<T>(path, init)).body;
}

/**
 * apiFetch, with the response's headers (a list that pages in headers, like a job's log) and its body's exact
 * text (a receipt is downloaded as the bytes the API answered, not as a re-serialisation of them).
 */
export async function apiFetchWithHeaders<T>(
  path: string,
  init: ApiRequestInit = {},
): Promise<{ body: T; headers: Headers; text: string }> {
  const { method = "GET", body, signal, headers = {} } = init;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      signal,
      cache: "no-store",
      credentials: "same-origin",
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, "NETWORK_ERROR", "Could not reach the server. Check your connection and try again.");
  }
  if (response.status === 204) return { body: undefined as T, headers: response.headers, text: "" };
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (response.ok)
        throw new ApiError(response.status, "INVALID_RESPONSE", "The server sent a response that is not JSON.");
    }
  }
  // /api/auth answers 401 to a signature it does not accept: that is a failed sign-in, not an ended session.
  if (response.status === 401 && !path.startsWith("/api/auth/")) noteSessionEnded();
  if (!response.ok) throw errorFrom(response, parsed);
  return { body: parsed as T, headers: response.headers, text };
}
