// The API's hottest routes, served by their own handlers straight from the product's HTTP server (server.mjs),
// beside Next.js's router instead of through it. A submission is the request an app sends for every job,
// and through `next start` Next.js's per-request pipeline (routing, a NextRequest, the incremental cache,
// streaming the Response into the socket) cost more server CPU than the whole submission it carries: half
// of the main thread's busy time in a fresh server's burst of 500 (docs/benchmarks.md, 2026-11-27).
//
// How: the server's edge (lib/http/server-edge.ts) sees each request before Next.js's handler. A request whose
// method and path match a direct route is answered here, with the same handler object the route file exports
// (withApi: guard, schemas, envelope, security headers); every other request, and any path this matcher is not
// sure of (an escape it cannot decode, a trailing slash, an empty segment), goes on to Next.js unchanged.
// Answers are compressed as Next.js compresses them (gzip; a client that takes only deflate gets them as they
// are). What Next.js adds that a direct route does not: X-Forwarded-* headers on the request (nothing reads
// them but the client address, which comes from the socket either way: lib/http/client-address.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import Negotiator from "negotiator";
import type { DeclaredHandler } from "./api";

export interface DirectMatch {
  handler: DeclaredHandler;
  params: Record<string, string>;
}

/** `/api/jobs/{jobId}` → ["api", "jobs", "{jobId}"]. */
const segmentsOf = (path: string) => path.slice(1).split("/");
const paramName = (segment: string) => (segment.startsWith("{") ? segment.slice(1, -1) : undefined);

/**
 * The direct route a request line names, if any: the method as declared, the path's segments equal to the
 * declaration's, and each {param} one non-empty segment, percent-decoded (split before decoding, so an
 * escaped "/" stays inside its parameter, as in Next.js). Anything else is not matched, and Next.js answers it.
 */
export function directRouteTable(handlers: readonly DeclaredHandler[]) {
  const entries = handlers.map((handler) => ({
    handler,
    method: handler.route.method.toUpperCase(),
    segments: segmentsOf(handler.route.path),
  }));
  return (method: string, url: string): DirectMatch | undefined => {
    const query = url.indexOf("?");
    const parts = segmentsOf(query === -1 ? url : url.slice(0, query));
    for (const entry of entries) {
      if (entry.method !== method || entry.segments.length !== parts.length || url[0] !== "/") continue;
      const params: Record<string, string> = {};
      const matches = entry.segments.every((segment, i) => {
        const name = paramName(segment);
        if (name === undefined) return parts[i] === segment;
        const value = decodedSegment(parts[i]);
        if (value === undefined) return false;
        params[name] = value;
        return true;
      });
      if (matches) return { handler: entry.handler, params };
    }
    return undefined;
  };
}

function decodedSegment(raw: string): string | undefined {
  if (raw === "" || raw === "." || raw === "..") return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * A request's body as a web stream. Unlike Readable.toWeb, cancelling it (a handler that stops reading past
 * the limit) leaves the request alone: destroying it would reset the connection before the answer is sent.
 * What the handler did not read is drained after the answer (lib/http/server-edge.ts).
 */
export function bodyStreamOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = () => undefined as void;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          detach();
          controller.close();
        };
        const onClose = () => {
          detach();
          controller.error(new Error("The client closed the connection before its request body ended."));
        };
        detach = () => void req.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose);
        req.on("data", onData).on("end", onEnd).on("close", onClose).on("error", onClose);
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
        req.pause();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/**
 * The web Request a route handler takes, for a Node request (its body streamed, not buffered). The origin is
 * not the client's to choose (a Host header proves nothing); handlers read only the path and the query.
 */
export function toWebRequest(req: IncomingMessage, signal: AbortSignal, origin = "http://localhost"): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(origin + (req.url ?? "/"), {
    method: req.method,
    headers,
    body: hasBody ? bodyStreamOf(req) : undefined,
    // @ts-expect-error Node's fetch needs duplex for streamed request bodies.
    duplex: "half",
    signal,
  });
}

/** A Response's status and headers, as Node's writeHead takes them (Set-Cookie as its list). */
export function nodeHeadersOf(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === "set-cookie") headers[key] = response.headers.getSetCookie();
    else headers[key] = value;
  });
  return headers;
}

const gzipped = promisify(gzip);
/** The smallest answer Next.js compresses (its `compression` package's threshold). */
const compressFromBytes = 1024;

/**
 * The body as Next.js's compression would send it: every JSON answer varies by Accept-Encoding, and one of
 * 1 KiB or more is gzipped for a client that takes gzip (a submission echoes its input, which can be large).
 */
async function encodedAsNextDoes(
  req: IncomingMessage,
  headers: Record<string, string | string[]>,
  body: Buffer,
): Promise<Buffer> {
  if (!String(headers["content-type"] ?? "").includes("json")) return body;
  headers.vary = headers.vary ? `${String(headers.vary)}, Accept-Encoding` : "Accept-Encoding";
  if (body.byteLength < compressFromBytes || headers["content-encoding"]) return body;
  if (new Negotiator(req).encoding(["gzip", "identity"]) !== "gzip") return body;
  headers["content-encoding"] = "gzip";
  return gzipped(body);
}

/** Sends a whole (small, JSON) answer as Next.js would, in one write: with its length it needs no chunked framing. */
export async function sendWhole(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers = nodeHeadersOf(response);
  const body = await encodedAsNextDoes(req, headers, Buffer.from(await response.arrayBuffer()));
  headers["content-length"] = String(body.byteLength);
  res.writeHead(response.status, headers).end(body);
}

/** Answers one request with a direct route's handler. */
export async function answerDirectly(
  req: IncomingMessage,
  res: ServerResponse,
  { handler, params }: DirectMatch,
): Promise<void> {
  const aborter = new AbortController();
  res.once("close", () => aborter.abort());
  try {
    await sendWhole(req, res, await handler(toWebRequest(req, aborter.signal), { params: Promise.resolve(params) }));
  } catch (error) {
    // withApi answers every error in the envelope: what reaches here is the client gone mid-answer.
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
