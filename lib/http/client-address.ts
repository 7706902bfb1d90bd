// The client's IP address for per-IP limits. Next.js route handlers do not see the socket, and the
// X-Forwarded-For that `next start` adds keeps any value the client sent (`??=`), so it proves nothing.
// Node's documented `http.server.request.start` diagnostics channel hands us each request with its socket
// before any server sees the request: it is stamped with the socket's address under a header of our own,
// replacing whatever a client sent under that name. The forwarded chain counts only under TRUST_PROXY.
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { env } from "@/lib/env";

const socketAddressHeader = "x-en-socket-address";
const subscribedKey = Symbol.for("execution-network.socket-address-stamped");

function stamp(message: unknown): void {
  const { request, socket } = message as { request: IncomingMessage; socket: Socket };
  request.headers[socketAddressHeader] = socket.remoteAddress ?? "unknown";
}

/** Once per process: every HTTP server's requests carry their socket address in `x-en-socket-address`. */
export function stampSocketAddresses(): void {
  // Flagged on globalThis: Next.js may load this module more than once in one process (separate bundles).
  const shared = globalThis as { [subscribedKey]?: boolean };
  if (shared[subscribedKey]) return;
  shared[subscribedKey] = true;
  subscribe("http.server.request.start", stamp);
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
