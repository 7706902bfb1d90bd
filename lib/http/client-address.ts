// The client's IP address for per-IP limits. Next.js route handlers do not see the socket, and the
// X-Forwarded-For that Next.js adds keeps any value the client sent (`??=`), so it proves nothing. The
// server's edge (lib/http/server-edge.ts) stamps each request with its socket's address under a header of
// our own, replacing whatever a client sent under that name, before any router sees it. The forwarded chain
// counts only under TRUST_PROXY.
import type { IncomingMessage } from "node:http";
import { env } from "@/lib/env";

const socketAddressHeader = "x-en-socket-address";

/** Stamps one request with its socket's address in `x-en-socket-address` (the server's edge, for every request). */
export function stampSocketAddress(request: IncomingMessage): void {
  request.headers[socketAddressHeader] = request.socket.remoteAddress ?? "unknown";
}

/** The address to count a request against: behind a trusted proxy the last hop it recorded, else the socket. */
export function clientAddressOf(req: Request): string {
  if (env().TRUST_PROXY) {
    const hops = (req.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    if (hops.length > 0) return hops[hops.length - 1];
  }
  return req.headers.get(socketAddressHeader) ?? "unknown";
}
