// The one wrapper every API route handler goes through: its declared guard and schemas, request id, error
// envelope, logging.
import { ZodError, type z } from "zod";
import type { Scope } from "@/lib/contract/vocabulary";
import { DomainError, issuesOf, notFound } from "@/lib/domain/errors";
import { createLogger, type Logger } from "@/lib/log";
import type { NodeRow } from "@/lib/network/coordinator";
import { errorResponse } from "./error-envelope";
import { jsonResponse } from "./json-response";
import { parseOr400, queryOf, readJson } from "./body";
import {
  checkOrigin,
  requireApiKey,
  requireApiKeyOrPayment,
  requireDeveloper,
  requireJobReader,
  requireNode,
  requireSession,
  type DeveloperPrincipal,
  type JobTokenPrincipal,
  type KeyPrincipal,
  type PayerPrincipal,
  type SessionPrincipal,
} from "./guards";
import { rateLimitHeadersOf } from "./rate-limit";
import { requestIdOf } from "./request-id";
import { apiSecurityHeaders } from "./security-headers";
import type { BodySpec, Credential, Output, RouteSpec } from "./routes";

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
  for (
    let e = error, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (unavailableCodes.has(code) || code.startsWith("08"))) return true;
    // node-postgres reports a connection that died mid-query (or mid-transaction, at its rollback) without a code.
    if (
      e instanceof Error &&
      /^Connection terminated|connection error and is not queryable|timeout expired/.test(e.message)
    )
      return true;
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

type PrincipalOf<C extends Credential> = C extends "session"
  ? SessionPrincipal
  : C extends "apiKey"
    ? KeyPrincipal
    : C extends "apiKeyOrPayment"
      ? KeyPrincipal | PayerPrincipal
      : C extends "either"
        ? DeveloperPrincipal
        : C extends "jobReader"
          ? DeveloperPrincipal | JobTokenPrincipal
          : C extends "node"
            ? NodeRow
            : undefined;

type JsonInit = { status?: number; headers?: Record<string, string> };

/** What a declared schema parses to; `undefined` when the route declares none. */
type Declared<S> = [NonNullable<S>] extends [never] ? undefined : Output<NonNullable<S>>;

export interface RouteContext<R extends RouteSpec> extends ApiContext<Declared<R["params"]>> {
  principal: PrincipalOf<R["credential"]>;
  query: Declared<R["query"]>;
  body: NonNullable<R["body"]> extends BodySpec<infer B, infer _P> ? z.output<B> : undefined;
  /** JSON of the declared response schema (anything, if none is declared); the status defaults to the declared one. */
  json: (
    body: [NonNullable<R["response"]["schema"]>] extends [never] ? unknown : Declared<R["response"]["schema"]>,
    init?: JsonInit,
  ) => Response;
}

/** A route handler as Next.js calls it, carrying its declaration (read by tests/integration/route-declarations.test.ts). */
export type DeclaredHandler = ((req: Request, ctx?: NextRouteContext<Record<string, string>>) => Promise<Response>) & {
  route: RouteSpec;
};
type DeclaredBody = NonNullable<RouteSpec["body"]>;
type DeclaredParams = Parameters<NonNullable<DeclaredBody["maxBytes"]>>[0];

/** The guard a route's credential names. Runs before anything else is read from the request. */
async function authorize(req: Request, route: RouteSpec): Promise<unknown> {
  switch (route.credential) {
    case "session":
      return requireSession(req);
    case "apiKey":
      return requireApiKey(req, route.scope as Scope);
    case "apiKeyOrPayment":
      return requireApiKeyOrPayment(req, route.scope as Scope);
    case "either":
      return requireDeveloper(req, route.scope as Scope);
    case "jobReader":
      return requireJobReader(req, route.scope as Scope);
    case "node":
      return requireNode(req);
    case "origin":
      return checkOrigin(req);
    case "none":
      return undefined;
  }
}

async function readBody(req: Request, spec: DeclaredBody, params: DeclaredParams): Promise<unknown> {
  if (spec.maxBytesOfBody) {
    return readJson(req, spec.schema, {
      allowEmpty: spec.allowEmpty,
      readLimitBytes: spec.maxBytesOfBody.readUpTo,
      maxBytes: spec.maxBytesOfBody.limit,
    });
  }
  return readJson(req, spec.schema, { allowEmpty: spec.allowEmpty, maxBytes: spec.maxBytes?.(params) });
}

/**
 * A route handler for a declared route (lib/http/routes.ts): the credential's guard, then the path params,
 * the query and the body parsed with the declared schemas (400/413/415 in the envelope), then `handler`.
 */
export function withApi<R extends RouteSpec>(
  route: R,
  handler: (req: Request, ctx: RouteContext<R>) => Promise<Response>,
): DeclaredHandler {
  const status = route.response.status;
  const wrapped = handleApi<Record<string, string>>(async (req, ctx) => {
    const principal = await authorize(req, route);
    const params: DeclaredParams = route.params ? parseOr400(route.params, ctx.params, "The path") : ctx.params;
    checkJobToken(principal, params);
    const query = route.query ? parseOr400(route.query, queryOf(req), "The query") : undefined;
    const body = route.body ? await readBody(req, route.body, params) : undefined;
    const json = (value: unknown, init: JsonInit = {}) => jsonResponse(value, init.status ?? status, init.headers);
    return handler(req, { ...ctx, params, principal, query, body, json } as RouteContext<R>);
  });
  return Object.assign(wrapped, { route });
}

/** An access token reads its own job only: any other is not found, exactly like one that does not exist. */
function checkJobToken(principal: unknown, params: DeclaredParams): void {
  const token = principal as Partial<JobTokenPrincipal> | undefined;
  if (token?.kind === "jobToken" && params?.jobId !== token.jobId) throw notFound("JOB_NOT_FOUND", "The job");
}

/** A path whose percent-encoding is not UTF-8 names nothing: 404, never a framework 500. */
function checkPath(pathname: string): void {
  try {
    decodeURIComponent(pathname);
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

/**
 * The envelope alone (request id, security headers, error mapping, request log): under every route handler,
 * and alone for those with no declaration (the catch-all's 404, other-methods.ts's 405 and OPTIONS).
 */
export function handleApi<P extends Record<string, string | string[]> = Record<string, never>>(handler: Handler<P>) {
  return async (req: Request, ctx?: NextRouteContext<P>): Promise<Response> => {
    const requestId = requestIdOf(req);
    const log = requestLog.child({ requestId });
    const started = performance.now();
    const { pathname } = new URL(req.url);
    let response: Response;
    try {
      checkPath(pathname);
      const params = await paramsOf(ctx);
      response = await handler(req, { params, requestId, log });
    } catch (error) {
      response = toErrorResponse(error, requestId, log);
    }
    response.headers.set("x-request-id", requestId);
    for (const [name, value] of apiSecurityHeaders()) response.headers.set(name, value);
    for (const [name, value] of Object.entries(rateLimitHeadersOf(req))) response.headers.set(name, value);
    log.debug("request", {
      method: req.method,
      path: pathname,
      status: response.status,
      ms: Math.round(performance.now() - started),
    });
    return response;
  };
}

export function noContent(headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 204, headers });
}
