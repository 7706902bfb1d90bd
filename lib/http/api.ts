// The one wrapper every API route handler goes through: request id, error envelope, logging.
import { ZodError } from "zod";
import { DomainError } from "@/lib/domain/errors";
import { createLogger, type Logger } from "@/lib/log";
import { errorResponse } from "./error-envelope";
import { issuesOf } from "./body";
import { requestIdOf } from "./request-id";

export interface ApiContext<P> {
  params: P;
  requestId: string;
  log: Logger;
}

type NextRouteContext<P> = { params: Promise<P> };
type Handler<P> = (req: Request, ctx: ApiContext<P>) => Promise<Response>;

const requestLog = createLogger({ component: "api" });

/** Connection-level failures: the database (or another dependency) is down, restarting or unreachable. */
const unavailableCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03"]);

/**
 * Errors that mean "the database is not answering": 503 with Retry-After, not 500. The driver's error may
 * be wrapped (drizzle's DrizzleQueryError keeps it as `cause`), so the whole cause chain is inspected.
 */
function isUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (unavailableCodes.has(code) || code.startsWith("08"))) return true;
    // node-postgres reports a connection that died mid-query without a code.
    if (e instanceof Error && /^Connection terminated/.test(e.message)) return true;
  }
  return false;
}

export function toErrorResponse(error: unknown, requestId: string, log: Logger): Response {
  if (error instanceof DomainError) {
    return errorResponse(error.code, error.message, requestId, error.details, error.retryAfterSeconds);
  }
  if (error instanceof ZodError) {
    return errorResponse("INVALID_REQUEST", "The request is not valid.", requestId, { issues: issuesOf(error) });
  }
  if (isUnavailable(error)) {
    log.error("dependency unavailable", { err: error });
    return errorResponse("UNAVAILABLE", "A dependency is unavailable; try again shortly.", requestId, undefined, 5);
  }
  log.error("unhandled error", { err: error });
  return errorResponse("INTERNAL_ERROR", "Something went wrong on our side.", requestId);
}

export function withApi<P extends Record<string, string | string[]> = Record<string, never>>(handler: Handler<P>) {
  return async (req: Request, ctx?: NextRouteContext<P>): Promise<Response> => {
    const requestId = requestIdOf(req);
    const log = requestLog.child({ requestId });
    const started = performance.now();
    let response: Response;
    try {
      const params = ((await ctx?.params) ?? {}) as P;
      response = await handler(req, { params, requestId, log });
    } catch (error) {
      response = toErrorResponse(error, requestId, log);
    }
    response.headers.set("x-request-id", requestId);
    log.debug("request", {
      method: req.method,
      path: new URL(req.url).pathname,
      status: response.status,
      ms: Math.round(performance.now() - started),
    });
    return response;
  };
}

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "content-type": "application/json", ...init.headers },
  });
}

export function noContent(headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 204, headers });
}
