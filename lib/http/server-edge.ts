// What every request meets on the HTTP server before a router sees it, whichever router answers it (Next.js's,
// the direct routes of lib/http/direct-routes.ts, or the test router), so that every edge behaves one way:
// - a method no route can have (TRACE, CONNECT, PROPFIND, a token Node's parser does not know) is 405 in the
//   contract's envelope: Next.js's router answers TRACE with a plain-text 500 (and logs a stack), PROPFIND with
//   an empty 400, and Node closes a CONNECT with no answer at all;
// - a request body still arriving after its answer (a 413, an early 401) is read and dropped, bounded in bytes
//   and time (limits.unreadBodyDrain*), so that a client still sending — Node's fetch, the client library's
//   transport — reads the answer instead of failing with EPIPE; the connection then stays usable.
//
// How: the edge is the server's own listeners (`request`, `connect`, `clientError`), and the server is ours:
// server.mjs runs Next.js as a custom server, its request handler being the `next` of serverEdge(). Each
// request first meets the request hooks (lib/http/request-hooks.ts) and is stamped with its socket's address
// (lib/http/client-address.ts); the request-duration histogram is one of those hooks (lib/http/request-metrics.ts),
// and the rest of the request runs inside the request scopes (a server span's context: lib/http/request-tracing.ts).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { limits } from "@/lib/limits";
import type { DeclaredHandler } from "./api";
import { stampSocketAddress } from "./client-address";
import { answerDirectly, directRouteTable, sendWhole } from "./direct-routes";
import { methodNotAllowedAt } from "./other-methods";
import { requestIdFrom } from "./request-id";
import { runInRequestScopes, runRequestHooks } from "./request-hooks";
import { measureRequests } from "./request-metrics";
import { traceRequests } from "./request-tracing";
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

/** What Node answers a request it cannot parse when the server has no `clientError` listener (its socketOnError). */
const nodeParseErrorStatus: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

/**
 * A request Node could not parse. A request line with a method its parser does not know (Node would answer a
 * bare 400) is 405, as for any other method no route has; every other error gets Node's own answer.
 */
function onClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (error.code === "HPE_INVALID_METHOD" && refuseUnknownMethod(error, socket)) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const status = nodeParseErrorStatus[error.code ?? ""] ?? "400 Bad Request";
    socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`, "latin1");
  }
  socket.destroy(error);
}

function refuseUnknownMethod(error: { rawPacket?: Buffer }, socket: Socket): boolean {
  // The parser fails again on each later chunk of the same connection: it is answered once.
  if (refusedSockets.has(socket)) return true;
  if (!socket.writable || socket.bytesWritten > 0) return false;
  refusedSockets.add(socket);
  const [token, target] = (error.rawPacket?.toString("latin1") ?? "").split(/[ \r\n]/, 2);
  const method = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}$/.test(token ?? "") ? token : "This method";
  void answerOnSocket(socket, refusal(method, target, undefined));
  return true;
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

/**
 * A request for `next`, whose body a reader may stop reading without destroying it. Next.js gives a route
 * handler's Request the IncomingMessage itself as its body, read through its async iterator, which destroys
 * the request when the reader cancels (a handler that stops past its limit): the socket then stops reading
 * while the client is still sending, and the connection can be reset under the answer (fetch fails with
 * ECONNRESET instead of reading the 413). Its iterator here only lets go, as bodyStreamOf does for the direct
 * routes; what is left is drained after the answer (drainUnreadBody).
 */
function keptOnCancel(req: IncomingMessage): IncomingMessage {
  req[Symbol.asyncIterator] = () => req.iterator({ destroyOnReturn: false });
  return req;
}

/** The listeners a server answers at its edge: requests (then `next`), CONNECT, and requests Node could not parse. */
export interface ServerEdge {
  request: RequestListener;
  connect: (req: IncomingMessage, socket: Duplex) => void;
  clientError: (error: Error, socket: Duplex) => void;
}

/**
 * The edge before `next`, the router (Next.js's request handler in server.mjs): hooks and the socket address
 * first, then refusals, then `directHandlers` answered by their own handlers (lib/http/direct-routes.ts), then
 * `next`; after any answer, an unread body is drained.
 */
export function serverEdge(next: RequestListener, directHandlers: readonly DeclaredHandler[] = []): ServerEdge {
  measureRequests();
  traceRequests();
  const direct = directHandlers.length > 0 ? directRouteTable(directHandlers) : undefined;
  const route = (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? "";
    if (!routerMethods.has(method)) {
      void sendWhole(req, res, refusal(method, req.url, req.headers["x-request-id"])).catch(() => res.destroy());
      return;
    }
    const match = direct?.(method, req.url ?? "");
    if (match) return void answerDirectly(req, res, match);
    return next(keptOnCancel(req), res);
  };
  return {
    request(req, res) {
      runRequestHooks(req, res);
      stampSocketAddress(req);
      res.once("finish", () => drainUnreadBody(req, req.socket));
      runInRequestScopes(req, res, () => route(req, res));
    },
    connect: refuseConnect,
    clientError: (error, socket) => onClientError(error, socket as Socket),
  };
}

/**
 * Keeps idle keep-alive connections open for limits.idleConnectionMs, which Node advertises in each answer's
 * `Keep-Alive: timeout=…` and reads at each answer's end (so it holds for a server already listening, as
 * server.mjs's is when the edge is handed over).
 */
export function keepIdleConnections(server: Server): Server {
  server.keepAliveTimeout = limits.idleConnectionMs;
  return server;
}

/** A server whose every request meets `edge` (its own listeners: nothing reaches the server another way). */
export function edgeServer(edge: ServerEdge): Server {
  return keepIdleConnections(
    createServer(edge.request).on("connect", edge.connect).on("clientError", edge.clientError),
  );
}
