// What every request meets on the HTTP server before a router sees it, whichever router answers it (Next.js's,
// the direct routes of lib/http/direct-routes.ts, or the test router), so that every edge behaves one way:
// - a method no route can have (TRACE, CONNECT, PROPFIND, a token Node's parser does not know) is 405 in the
//   contract's envelope: Next.js's router answers TRACE with a plain-text 500 (and logs a stack), PROPFIND with
//   an empty 400, and Node closes a CONNECT with no answer at all;
// - a request body still arriving after its answer (a 413, an early 401) is read and dropped, bounded in bytes
//   and time (limits.unreadBodyDrain*), so that a client still sending — Node's fetch, the client library's
//   transport — reads the answer instead of failing with EPIPE; the connection then stays usable.
//
// How: the documented diagnostics channels of node:net and node:http. `net.server.socket` names each TCP
// server at its first connection, before any request is parsed: its `emit` is wrapped (the only way to answer a
// request before the server's own listener, Next.js's, sees it) and a `connect` listener answers CONNECT.
// `http.server.response.finish` says when an answer is sent, before Node decides what to do with the rest of
// the request.
import { subscribe } from "node:diagnostics_channel";
import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { limits } from "@/lib/limits";
import type { DeclaredHandler } from "./api";
import { answerDirectly, directRouteTable, sendWhole, type DirectMatch } from "./direct-routes";
import { methodNotAllowedAt } from "./other-methods";
import { requestIdFrom } from "./request-id";
import { measureRequests } from "./request-metrics";
import { apiSecurityHeaders } from "./security-headers";

/** The methods Next.js's route handlers can be asked for: any other one is refused here. */
const routerMethods = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

/** The path a request line names; "/" for a CONNECT's authority (`host:port`) or anything unparsable. */
function pathnameOf(target: string | undefined): string {
  try {
    const { pathname } = new URL(target ?? "/", "http://localhost");
    return pathname.startsWith("/") ? pathname : "/";
  } catch {
    return "/";
  }
}

/** 405 in the envelope, with the headers every API answer has. */
function refusal(method: string, target: string | undefined, requestIdHeader: string | string[] | undefined) {
  const response = methodNotAllowedAt(method, pathnameOf(target), requestIdFrom(requestIdHeader));
  for (const [name, value] of apiSecurityHeaders()) response.headers.set(name, value);
  return response;
}

/** An answer written straight to a socket no ServerResponse owns (CONNECT, a request line Node could not parse), then closed. */
async function answerOnSocket(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || "Method Not Allowed"}`];
  response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  lines.push(`content-length: ${body.byteLength}`, "connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), body]), () => socket.destroy());
}

function refuseConnect(req: IncomingMessage, socket: Duplex): void {
  socket.on("error", () => undefined);
  void answerOnSocket(socket, refusal(req.method ?? "CONNECT", req.url, req.headers["x-request-id"]));
}

const refusedSockets = new WeakSet<Socket>();

/**
 * A request line with a method Node's parser does not know (Node would answer a bare 400): 405 as for any
 * other method no route has. Every other parse error keeps Node's own answer.
 */
function refusedUnknownMethod(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): boolean {
  if (error.code !== "HPE_INVALID_METHOD") return false;
  // The parser fails again on each later chunk of the same connection: it is answered once.
  if (refusedSockets.has(socket)) return true;
  if (!socket.writable || socket.bytesWritten > 0) return false;
  refusedSockets.add(socket);
  const [token, target] = (error.rawPacket?.toString("latin1") ?? "").split(/[ \r\n]/, 2);
  const method = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}$/.test(token ?? "") ? token : "This method";
  void answerOnSocket(socket, refusal(method, target, undefined));
  return true;
}

/** Wraps one server's `emit`: refusals and direct routes first, every other request to the server's listener. */
export function guardServer(server: Server, direct?: (method: string, url: string) => DirectMatch | undefined): void {
  const emit = server.emit;
  server.emit = function emitAtTheEdge(this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      const method = req.method ?? "";
      if (!routerMethods.has(method)) {
        void sendWhole(req, res, refusal(method, req.url, req.headers["x-request-id"])).catch(() => res.destroy());
        return true;
      }
      const match = direct?.(method, req.url ?? "");
      if (match) {
        void answerDirectly(req, res, match);
        return true;
      }
    } else if (event === "clientError") {
      const [error, socket] = args as [NodeJS.ErrnoException, Socket];
      if (refusedUnknownMethod(error, socket)) return true;
    }
    return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>);
  } as Server["emit"];
  server.on("connect", refuseConnect);
}

/**
 * After its answer, the rest of a request body is read and dropped (Node would otherwise drop it without
 * bound, or not at all when a handler had started reading), up to limits.unreadBodyDrainBytes and
 * limits.unreadBodyDrainMs; past either the connection is closed once the answer has left.
 */
export function drainUnreadBody(request: IncomingMessage, socket: Socket): void {
  if (request.complete || socket.destroyed) return;
  const startedAt = socket.bytesRead;
  const stop = () => {
    clearTimeout(timer);
    request.off("data", onData).off("end", stop).off("close", stop);
  };
  const close = () => {
    stop();
    if (!socket.destroyed) socket.end(() => socket.destroy());
  };
  const onData = () => {
    if (socket.bytesRead - startedAt > limits.unreadBodyDrainBytes) close();
  };
  const timer = setTimeout(close, limits.unreadBodyDrainMs);
  timer.unref();
  // A reader the handler left behind (a cancelled body stream) must not see what follows.
  request.removeAllListeners("data");
  request.on("data", onData).once("end", stop).once("close", stop);
  request.resume();
}

const installedKey = Symbol.for("execution-network.server-edge");

/**
 * Once per process: every TCP server's requests meet the edge, and `directHandlers` are answered by their
 * own handlers (lib/http/direct-routes.ts). A server on a socket path (the operator's, lib/operator/socket.ts)
 * serves no API and is left alone.
 */
export function guardServers(directHandlers: readonly DeclaredHandler[] = []): void {
  // Flagged on globalThis: Next.js may load this module more than once in one process (separate bundles).
  const shared = globalThis as { [installedKey]?: boolean };
  if (shared[installedKey]) return;
  shared[installedKey] = true;
  const direct = directHandlers.length > 0 ? directRouteTable(directHandlers) : undefined;
  const seen = new WeakSet<Server>();
  subscribe("net.server.socket", (message) => {
    const { server } = (message as { socket: Socket & { server?: unknown } }).socket;
    if (!(server instanceof Server) || seen.has(server)) return;
    seen.add(server);
    if (typeof server.address() === "string") return;
    guardServer(server, direct);
  });
  subscribe("http.server.response.finish", (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    drainUnreadBody(request, socket);
  });
  measureRequests();
}
