// The one place an observer meets every HTTP request the product serves. The server's listener
// (lib/http/server-edge.ts, on the server server.mjs runs) calls each hook first, before the edge's refusals,
// the direct routes and Next.js's router, so a request span or a duration histogram sees every answer,
// whoever gives it. A hook that wants the end listens on the response ("finish", "close"). A scope goes further:
// the rest of the request runs inside it (a trace's context, which must be active for every handler).
import type { IncomingMessage, ServerResponse } from "node:http";

export type RequestHook = (req: IncomingMessage, res: ServerResponse) => void;

const hooksKey = Symbol.for("execution-network.request-hooks");
// On globalThis: Next.js may load this module more than once in one process (separate bundles).
const shared = globalThis as { [hooksKey]?: RequestHook[] };
const hooks = (shared[hooksKey] ??= []);

/** Adds a hook every later request meets first; returns its removal. A hook must not throw: no answer exists yet. */
export function onEveryRequest(hook: RequestHook): () => void {
  hooks.push(hook);
  return () => {
    const at = hooks.indexOf(hook);
    if (at !== -1) hooks.splice(at, 1);
  };
}

/** Runs every hook on one request (the server's listener, nothing else). */
export function runRequestHooks(req: IncomingMessage, res: ServerResponse): void {
  for (const hook of hooks) hook(req, res);
}

/** Runs `next`, the rest of the request, inside it; must call `next` exactly once, at once, and not throw. */
export type RequestScope = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const scopesKey = Symbol.for("execution-network.request-scopes");
const sharedScopes = globalThis as { [scopesKey]?: RequestScope[] };
const scopes = (sharedScopes[scopesKey] ??= []);

/** Adds a scope every later request runs inside (once per process: there is no removal). */
export function aroundEveryRequest(scope: RequestScope): void {
  scopes.push(scope);
}

/** Runs `next` inside every scope, the first added outermost (the server's listener, nothing else). */
export function runInRequestScopes(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (scopes.length === 0) return next();
  const enter = (i: number): void => (i === scopes.length ? next() : scopes[i](req, res, () => enter(i + 1)));
  enter(0);
}
