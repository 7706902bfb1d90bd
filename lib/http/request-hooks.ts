// The one place an observer meets every HTTP request the product serves. The server's listener
// (lib/http/server-edge.ts, on the server server.mjs runs) calls each hook first, before the edge's refusals,
// the direct routes and Next.js's router, so a request span or a duration histogram sees every answer,
// whoever gives it. A hook that wants the end listens on the response ("finish", "close").
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
