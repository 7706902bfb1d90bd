// The one wrapper every API route handler goes through: request id, error envelope, logging.
import { ZodError } from "zod";
import { DomainError } from "@/lib/domain/errors";
import { createLogger, type Logger } from "@/lib/log";
import { errorResponse } from "./error-envelope";
import { issuesOf } from "./body";
import { rateLimitHeadersOf } from "./rate-limit";
import { requestIdOf } from "./request-id";

export interface ApiContext<P> {
  params: P;
  requestId: string;
  log: Logger;
}

type NextRouteContext<P> = { params: Promise<P> };
type Handler<P> = (req: Request, ctx: ApiContext<P>) => Promise<Response>;

const requestLog = createLogger({ component: "api" });

/** Errors that mean "the database is not answering": 503 with Retry-After, not 500. */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code === "ECONNREFUSED" || code === "57P01" || code.startsWith("08"));
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

/** A path whose percent-encoding is not UTF-8 names nothing: 404, never a framework 500. */
function checkPath(url: string): void {
  try {
    decodeURIComponent(new URL(url).pathname);
  } catch {
    throw new DomainError("NOT_FOUND", "The path is not valid percent-encoded UTF-8.");
  }
}

async function paramsOf<P>(ctx: NextRouteContext<P> | undefined): Promise<P> {
  try {
    return ((await ctx?.params) ?? {}) as P;
  } catch (error) {
    if (error instanceof URIError) throw new DomainError("NOT_FOUND", "The path is not valid percent-encoded UTF-8.");
    throw error;
  }
}

export function withApi<P extends Record<string, string | string[]> = Record<string, never>>(handler: Handler<P>) {
  return async (req: Request, ctx?: NextRouteContext<P>): Promise<Response> => {
    const requestId = requestIdOf(req);
    const log = requestLog.child({ requestId });
    const started = performance.now();
    let response: Response;
    try {
      checkPath(req.url);
      const params = await paramsOf(ctx);
      response = await handler(req, { params, requestId, log });
    } catch (error) {
      response = toErrorResponse(error, requestId, log);
    }
    response.headers.set("x-request-id", requestId);
    for (const [name, value] of Object.entries(rateLimitHeadersOf(req))) response.headers.set(name, value);
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
